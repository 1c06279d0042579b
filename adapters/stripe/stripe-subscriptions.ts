import type { PaymentEventReport } from "@roster/application"
import { BillingStatus, type SubscriptionSnapshot } from "@roster/domain"
import { Schema } from "effect"

/**
 * Stripe's objects as the service reads them, from API answers and from events alike. Events
 * carry the object in the API version of the webhook endpoint, so fields are read wherever a
 * version puts them: the period's end is on the subscription's items since 2025-03-31, on the
 * subscription itself before.
 */

type Json = Readonly<Record<string, unknown>>

const isObject = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

const text = (u: unknown): string | null => typeof u === "string" && u !== "" ? u : null

/** An id, whether the field holds it or an expanded object with it. */
const idOf = (u: unknown): string | null => text(u) ?? (isObject(u) ? text(u.id) : null)

const seconds = (u: unknown): Date | null => typeof u === "number" && Number.isFinite(u) ? new Date(u * 1000) : null

const isStatus = Schema.is(BillingStatus)

/** A Stripe subscription as a snapshot; `undefined` when it is not one. */
export const readSubscription = (u: unknown): SubscriptionSnapshot | undefined => {
  if (!isObject(u) || u.object !== "subscription") return undefined
  const id = text(u.id)
  const customerId = idOf(u.customer)
  if (id === null || customerId === null || typeof u.status !== "string" || !isStatus(u.status) || u.status === "none") {
    return undefined
  }
  const items = isObject(u.items) && Array.isArray(u.items.data) ? u.items.data.filter(isObject) : []
  const first = items[0]
  const ends = items.map((item) => seconds(item.current_period_end)).filter((d): d is Date => d !== null)
  const periodEnd = ends.length > 0 ? new Date(Math.max(...ends.map((d) => d.getTime()))) : seconds(u.current_period_end)
  return {
    id,
    customerId,
    status: u.status,
    priceId: first === undefined ? null : idOf(first.price) ?? idOf(first.plan),
    currentPeriodEnd: periodEnd,
    cancelAtPeriodEnd: u.cancel_at_period_end === true
  }
}

/** The organization a subscription names in its metadata (set at checkout). */
const organizationNamed = (u: unknown): string | null =>
  isObject(u) && isObject(u.metadata) ? text(u.metadata.organization_id) : null

const SUBSCRIPTION_EVENTS: ReadonlySet<string> = new Set([
  "customer.subscription.created",
  "customer.subscription.updated",
  "customer.subscription.deleted",
  "customer.subscription.paused",
  "customer.subscription.resumed"
])

/**
 * A verified Stripe event as the billing use case takes it: checkout completions and subscription
 * changes; every other kind (and an object that is not what its kind says) as `other`.
 */
export const readStripeEvent = (event: unknown): PaymentEventReport => {
  const e = isObject(event) ? event : {}
  const id = text(e.id) ?? ""
  const type = text(e.type) ?? ""
  const createdAt = seconds(e.created) ?? new Date(0)
  const object = isObject(e.data) ? e.data.object : undefined
  if (SUBSCRIPTION_EVENTS.has(type)) {
    const subscription = readSubscription(object)
    if (subscription !== undefined) {
      return { kind: "subscription", id, createdAt, subscription, organizationId: organizationNamed(object) }
    }
  }
  if (type === "checkout.session.completed" && isObject(object) && object.object === "checkout.session") {
    if (object.mode === "subscription") {
      return {
        kind: "checkout_completed",
        id,
        createdAt,
        customerId: idOf(object.customer),
        subscriptionId: idOf(object.subscription),
        organizationId: text(object.client_reference_id)
      }
    }
  }
  return { kind: "other", id, type }
}
