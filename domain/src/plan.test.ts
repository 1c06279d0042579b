import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { subscriberLimit, withinLimit } from "./limits.js"
import { planLimits, PlanTier, TOP_TIER } from "./plan.js"

describe("plans", () => {
  it("rate limits are 100 and 1000 requests a minute on free and pro, more on enterprise", () => {
    expect(planLimits.free.requestsPerMinute).toBe(100)
    expect(planLimits.pro.requestsPerMinute).toBe(1000)
    expect(planLimits.enterprise.requestsPerMinute).toBeGreaterThan(1000)
  })

  it("each tier allows at least what the tier below it allows", () => {
    const atLeast = (higher: number | null, lower: number | null) => higher === null || (lower !== null && higher >= lower)
    const tiers = PlanTier.literals
    for (let i = 1; i < tiers.length; i++) {
      const [lower, higher] = [planLimits[tiers[i - 1]!], planLimits[tiers[i]!]]
      expect(atLeast(higher.maxSubscribers, lower.maxSubscribers)).toBe(true)
      expect(atLeast(higher.maxEmailsPerMonth, lower.maxEmailsPerMonth)).toBe(true)
      expect(higher.requestsPerMinute).toBeGreaterThan(lower.requestsPerMinute)
    }
  })

  it("only the top tier may send from a custom domain", () => {
    expect(TOP_TIER).toBe("enterprise")
    expect(PlanTier.literals.filter((tier) => planLimits[tier].customSendingDomain)).toEqual([TOP_TIER])
  })

  it("a free organization may fill its plan to the last subscriber and no further", () => {
    const max = planLimits.free.maxSubscribers!
    expect(withinLimit(subscriberLimit("free"), max - 1, 1)).toBe(true)
    expect(withinLimit(subscriberLimit("free"), max, 1)).toBe(false)
    expect(withinLimit(subscriberLimit("free"), max - 10, 10)).toBe(true)
    expect(withinLimit(subscriberLimit("free"), max - 10, 11)).toBe(false)
  })

  it.prop(
    "the limit holds exactly when the total stays within the maximum; enterprise has none",
    [fc.constantFrom(...PlanTier.literals), fc.nat({ max: 2_000_000 }), fc.nat({ max: 2_000_000 })],
    ([tier, current, adding]) => {
      const max = planLimits[tier].maxSubscribers
      expect(withinLimit(subscriberLimit(tier), current, adding)).toBe(max === null || current + adding <= max)
      if (tier === "enterprise") expect(withinLimit(subscriberLimit(tier), current, adding)).toBe(true)
    }
  )
})
