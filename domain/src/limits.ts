import { planLimits, type PlanTier, requestsPerMinute, TOP_TIER } from "./plan.js"

/**
 * How many of a thing an organization may hold, each limit named once here. Adapters that keep the
 * counts check a limit with {@link withinLimit} while they hold what they count, so that concurrent
 * additions never pass it together; SQL that checks it in a statement mirrors `withinLimit` and
 * says so.
 */

/** The most of a thing an organization may hold; `null` is no limit. */
export type Limit = number | null

/** Whether an organization holding `current` may add `adding` more under `max`. */
export const withinLimit = (max: Limit, current: number, adding: number): boolean =>
  max === null || current + adding <= max

/**
 * Whether a subscriber carrying `current` tags may take `adding` new ones under `max`. Taking none
 * is always allowed, so that a subscriber who carries more than a limit set later keeps working.
 */
export const mayCarry = (max: Limit, current: number, adding: number): boolean =>
  adding === 0 || withinLimit(max, current, adding)

/** Subscribers an organization may keep, by its plan. */
export const subscriberLimit = (tier: PlanTier): Limit => planLimits[tier].maxSubscribers

/**
 * Tags an organization may hold, on every plan: room for every list, interest and source a real
 * newsletter keeps, while its preference page stays small and quick.
 */
export const MAX_TAGS_PER_ORGANIZATION = 1_000

/** Tags one subscriber may carry, on every plan. */
export const MAX_TAGS_PER_SUBSCRIBER = 200

/** Webhook endpoints an organization may register, on every plan. */
export const MAX_WEBHOOK_ENDPOINTS = 50

/**
 * Requests a minute to the preference center (its page, its API and one-click unsubscribe): per
 * link, and per client address, which many subscribers may share behind one network.
 */
export const PREFERENCE_REQUESTS_PER_TOKEN = 30
export const PREFERENCE_REQUESTS_PER_ADDRESS = 120

/**
 * Sign-ups a minute one form takes, from all its readers together, unless the operator sets
 * another (SIGN_UP_RATE_PER_FORM). Above the requests a minute one client address may make to the
 * sign-up pages (the lowest plan's rate), so that one address alone never fills a form's minute;
 * a flood spread over many addresses stops here, and with it the confirmation emails it would send.
 */
export const SIGN_UPS_PER_FORM_PER_MINUTE = 120

/** Emails an organization may hand to the provider in a calendar month, by its plan. */
export const emailLimit = (tier: PlanTier): Limit => planLimits[tier].maxEmailsPerMonth

/**
 * Which limits apply to an organization: the one rule every use case that could exceed a limit
 * asks, so that a deployment either keeps its organizations to their plans or runs without plans
 * (PLAN_LIMITS=off) everywhere at once.
 */
export interface LimitPolicy {
  /** Whether organizations are kept to plans, which billing changes; `false` on a deployment without plans. */
  readonly plans: boolean
  /** Subscribers an organization on `tier` may keep. */
  readonly subscribers: (tier: PlanTier) => Limit
  /** Emails an organization on `tier` may hand to the provider in a calendar month. */
  readonly emailsPerMonth: (tier: PlanTier) => Limit
  /** Requests a minute an organization on `tier` with `customRateLimit` may make; `null` for no limit. */
  readonly requestsPerMinute: (tier: PlanTier, customRateLimit: number | null) => number | null
  /** Whether an organization on `tier` may send from a domain of its own. */
  readonly customSendingDomain: (tier: PlanTier) => boolean
}

/** Each organization is kept to its plan: the default. */
export const planLimitPolicy: LimitPolicy = {
  plans: true,
  subscribers: subscriberLimit,
  emailsPerMonth: emailLimit,
  requestsPerMinute,
  customSendingDomain: (tier) => planLimits[tier].customSendingDomain
}

/**
 * No plans: no subscriber or email limit, every feature, and no rate limit but a custom one the
 * operator set on an organization (which a custom rate limit needs the top tier for, as ever).
 */
export const unlimitedPolicy: LimitPolicy = {
  plans: false,
  subscribers: () => null,
  emailsPerMonth: () => null,
  requestsPerMinute: (tier, customRateLimit) =>
    tier === TOP_TIER && customRateLimit !== null && customRateLimit > 0 ? customRateLimit : null,
  customSendingDomain: () => true
}
