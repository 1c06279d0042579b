import { Schema } from "effect"

/** Plan tiers, lowest first; `enterprise` is the top tier. */
export const PlanTier = Schema.Literal("free", "pro", "enterprise")
export type PlanTier = typeof PlanTier.Type
export const TOP_TIER: PlanTier = "enterprise"

export interface PlanLimits {
  /** Subscribers an organization may keep; `null` is unlimited. */
  readonly maxSubscribers: number | null
  /** Emails handed to the provider per calendar month; `null` is unlimited. */
  readonly maxEmailsPerMonth: number | null
  /** API requests per minute, per organization. */
  readonly requestsPerMinute: number
  readonly customSendingDomain: boolean
}

export const planLimits: Readonly<Record<PlanTier, PlanLimits>> = {
  free: { maxSubscribers: 1_000, maxEmailsPerMonth: 10_000, requestsPerMinute: 100, customSendingDomain: false },
  pro: { maxSubscribers: 100_000, maxEmailsPerMonth: 1_000_000, requestsPerMinute: 1_000, customSendingDomain: false },
  enterprise: { maxSubscribers: null, maxEmailsPerMonth: null, requestsPerMinute: 10_000, customSendingDomain: true }
}
