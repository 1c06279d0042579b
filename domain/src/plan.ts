import { Schema } from "effect"
import { type Reason, reason, reasonTextOf } from "./reason.js"

/** Plan tiers, lowest first; `enterprise` is the top tier. */
export const PlanTier = Schema.Literal("free", "pro", "enterprise")
export type PlanTier = typeof PlanTier.Type
export const TOP_TIER: PlanTier = "enterprise"

export interface PlanLimits {
  /** Subscribers an organization may keep; `null` is unlimited. */
  readonly maxSubscribers: number | null
  /** Emails handed to the provider per calendar month; `null` is unlimited. */
  readonly maxEmailsPerMonth: number | null
  /** API requests per minute, per organization; the top tier's can be set per organization. */
  readonly requestsPerMinute: number
  readonly customSendingDomain: boolean
}

export const planLimits: Readonly<Record<PlanTier, PlanLimits>> = {
  free: { maxSubscribers: 1_000, maxEmailsPerMonth: 10_000, requestsPerMinute: 100, customSendingDomain: false },
  pro: { maxSubscribers: 100_000, maxEmailsPerMonth: 1_000_000, requestsPerMinute: 1_000, customSendingDomain: false },
  enterprise: { maxSubscribers: null, maxEmailsPerMonth: null, requestsPerMinute: 10_000, customSendingDomain: true }
}

/** The lowest tier above `tier` that allows more of `limit` than `tier` does; `undefined` on the top of it. */
export const tierLifting = (limit: "subscribers" | "emails_per_month", tier: PlanTier): PlanTier | undefined => {
  const of = (t: PlanTier) => limit === "subscribers" ? planLimits[t].maxSubscribers : planLimits[t].maxEmailsPerMonth
  const current = of(tier)
  if (current === null) return undefined
  return PlanTier.literals.slice(PlanTier.literals.indexOf(tier) + 1).find((t) => {
    const max = of(t)
    return max === null || max > current
  })
}

/** The most requests per minute a custom rate limit may allow. */
export const MAX_CUSTOM_RATE_LIMIT = 100_000_000

/**
 * A custom rate limit, set per organization on the top tier only: requests per minute, `0` for
 * none. Lower tiers keep their plan's rate.
 */
export const CustomRateLimit = Schema.Int.pipe(
  Schema.between(0, MAX_CUSTOM_RATE_LIMIT),
  Schema.annotations({ identifier: "CustomRateLimit" })
)

/**
 * The requests per minute an organization may make: its plan's, or on the top tier its custom
 * limit when one is set; `null` when it has none.
 */
export const requestsPerMinute = (tier: PlanTier, customRateLimit: number | null): number | null => {
  if (tier !== TOP_TIER || customRateLimit === null) return planLimits[tier].requestsPerMinute
  return customRateLimit === 0 ? null : customRateLimit
}

/** Why a custom rate limit cannot go with a tier, if it cannot. */
export const customRateLimitReason = (tier: PlanTier, customRateLimit: number | null): Reason | undefined =>
  customRateLimit === null || tier === TOP_TIER
    ? undefined
    : reason("customRateLimit", { topTier: TOP_TIER, tier, perMinute: planLimits[tier].requestsPerMinute })

/** {@link customRateLimitReason} in English. */
export const customRateLimitProblem = (tier: PlanTier, customRateLimit: number | null): string | undefined =>
  reasonTextOf(customRateLimitReason(tier, customRateLimit))
