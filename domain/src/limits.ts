import { planLimits, type PlanTier } from "./plan.js"

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

/** Emails an organization may hand to the provider in a calendar month, by its plan. */
export const emailLimit = (tier: PlanTier): Limit => planLimits[tier].maxEmailsPerMonth
