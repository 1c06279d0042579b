import { Schema } from "effect"
import { OrganizationId } from "./ids.js"
import { type PlanTier } from "./plan.js"

/**
 * What the payment provider says of an organization's subscription, and what it does to the
 * organization's plan. `none` is an organization without a subscription; the other values are the
 * provider's (Stripe's) subscription statuses.
 */
export const BillingStatus = Schema.Literal(
  "none",
  "incomplete",
  "incomplete_expired",
  "trialing",
  "active",
  "past_due",
  "canceled",
  "unpaid",
  "paused"
)
export type BillingStatus = typeof BillingStatus.Type

/** Statuses under which the subscription's plan is in force. `past_due` keeps it while the provider retries the payment. */
export const PAID_STATUSES: ReadonlySet<BillingStatus> = new Set(["trialing", "active", "past_due"])

/** Statuses that end the paid plan when the period that was paid for ends. */
export const ENDING_STATUSES: ReadonlySet<BillingStatus> = new Set(["canceled", "unpaid", "incomplete_expired", "paused"])

/** Statuses a subscription never leaves. */
const FINAL_STATUSES: ReadonlySet<BillingStatus> = new Set(["canceled", "incomplete_expired"])

/** An organization's account with the payment provider. */
export class BillingAccount extends Schema.Class<BillingAccount>("BillingAccount")({
  organizationId: OrganizationId,
  /** The provider's customer; one per organization, made once. */
  customerId: Schema.NullOr(Schema.String),
  subscriptionId: Schema.NullOr(Schema.String),
  priceId: Schema.NullOr(Schema.String),
  status: BillingStatus,
  currentPeriodEnd: Schema.NullOr(Schema.DateFromSelf),
  cancelAtPeriodEnd: Schema.Boolean,
  /** When the provider made the last change applied (an event's `created`, or a sync's time). */
  lastChangeAt: Schema.NullOr(Schema.DateFromSelf),
  /**
   * When the plan of a subscription that ended fell back to `free`; once settled, the account
   * leaves the plan alone (an operator may grant another) until the provider changes it again.
   */
  settledAt: Schema.NullOr(Schema.DateFromSelf),
  updatedAt: Schema.DateFromSelf
}) {}

/** An account without a customer or subscription yet. */
export const emptyBillingAccount = (organizationId: OrganizationId, at: Date): BillingAccount =>
  new BillingAccount({
    organizationId,
    customerId: null,
    subscriptionId: null,
    priceId: null,
    status: "none",
    currentPeriodEnd: null,
    cancelAtPeriodEnd: false,
    lastChangeAt: null,
    settledAt: null,
    updatedAt: at
  })

/** A subscription as the provider reported it. */
export interface SubscriptionSnapshot {
  readonly id: string
  readonly customerId: string
  readonly status: BillingStatus
  /** The price of its first item. */
  readonly priceId: string | null
  readonly currentPeriodEnd: Date | null
  readonly cancelAtPeriodEnd: boolean
}

/**
 * Whether a change of the provider, made at `changedAt`, is newer than what the account holds, so
 * that events delivered out of order never move it backwards:
 * - of the subscription the account holds: unless older than the last change applied, or the
 *   subscription ended for good (canceled and expired subscriptions never come back);
 * - of another subscription: when the account holds none or one that ended for good, or when it
 *   is a paid one no older than the last change (a new subscription replaces the old one).
 */
export const isNewerChange = (account: BillingAccount, snapshot: SubscriptionSnapshot, changedAt: Date): boolean => {
  const older = account.lastChangeAt !== null && changedAt.getTime() < account.lastChangeAt.getTime()
  if (account.subscriptionId === snapshot.id) {
    if (older) return false
    return !FINAL_STATUSES.has(account.status) || account.status === snapshot.status
  }
  if (account.subscriptionId === null || FINAL_STATUSES.has(account.status)) return !older || PAID_STATUSES.has(snapshot.status)
  return !older && PAID_STATUSES.has(snapshot.status)
}

/** The account once a newer change of the provider is applied. */
export const applySubscription = (
  account: BillingAccount,
  snapshot: SubscriptionSnapshot,
  changedAt: Date,
  at: Date
): BillingAccount =>
  new BillingAccount({
    ...account,
    customerId: account.customerId ?? snapshot.customerId,
    subscriptionId: snapshot.id,
    priceId: snapshot.priceId,
    status: snapshot.status,
    currentPeriodEnd: snapshot.currentPeriodEnd,
    cancelAtPeriodEnd: snapshot.cancelAtPeriodEnd,
    lastChangeAt: account.lastChangeAt === null || changedAt > account.lastChangeAt ? changedAt : account.lastChangeAt,
    settledAt: null,
    updatedAt: at
  })

/**
 * The plan an account gives its organization at `now`, given the tier of its price (`null` for a
 * price the service does not know); `undefined` when the account leaves the plan as it is (no
 * subscription, a first payment still under way, an unknown price, or an end already settled):
 * - a trialing, active or past-due subscription gives its price's tier;
 * - a canceled, unpaid, expired or paused one gives it until its period ends, then `free`.
 */
export const tierOfAccount = (account: BillingAccount, priceTier: PlanTier | null, now: Date): PlanTier | undefined => {
  if (account.status === "none" || account.status === "incomplete" || account.settledAt !== null) return undefined
  if (hasEnded(account, now)) return "free"
  return priceTier ?? undefined
}

/** Whether the account's paid plan is over at `now`: its subscription ends and its period has passed. */
export const hasEnded = (account: BillingAccount, now: Date): boolean =>
  ENDING_STATUSES.has(account.status) && (account.currentPeriodEnd === null || account.currentPeriodEnd.getTime() <= now.getTime())

/** Whether the plan of an account that ended is still to fall back to `free`. */
export const isDueToSettle = (account: BillingAccount, now: Date): boolean => account.settledAt === null && hasEnded(account, now)
