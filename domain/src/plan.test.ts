import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { planLimitPolicy, subscriberLimit, unlimitedPolicy, withinLimit } from "./limits.js"
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

  it("the plan policy keeps each tier to its plan; without plans nothing is limited but a custom rate set on the top tier", () => {
    for (const tier of PlanTier.literals) {
      expect(planLimitPolicy.plans).toBe(true)
      expect(planLimitPolicy.subscribers(tier)).toBe(planLimits[tier].maxSubscribers)
      expect(planLimitPolicy.emailsPerMonth(tier)).toBe(planLimits[tier].maxEmailsPerMonth)
      expect(planLimitPolicy.requestsPerMinute(tier, null)).toBe(planLimits[tier].requestsPerMinute)
      expect(planLimitPolicy.customSendingDomain(tier)).toBe(planLimits[tier].customSendingDomain)
      expect(unlimitedPolicy.plans).toBe(false)
      expect(unlimitedPolicy.subscribers(tier)).toBeNull()
      expect(unlimitedPolicy.emailsPerMonth(tier)).toBeNull()
      expect(unlimitedPolicy.requestsPerMinute(tier, null)).toBeNull()
      expect(unlimitedPolicy.customSendingDomain(tier)).toBe(true)
    }
    expect(planLimitPolicy.requestsPerMinute(TOP_TIER, 5_000)).toBe(5_000)
    expect(unlimitedPolicy.requestsPerMinute(TOP_TIER, 5_000)).toBe(5_000)
    expect(unlimitedPolicy.requestsPerMinute(TOP_TIER, 0)).toBeNull()
    expect(unlimitedPolicy.requestsPerMinute("free", 5_000)).toBeNull()
  })
})
