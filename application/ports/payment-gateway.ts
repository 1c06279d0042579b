import type { OrganizationId, SubscriptionSnapshot } from "@roster/domain"
import { Context, type Effect, Schema } from "effect"

/** No payment provider is configured (STRIPE_SECRET_KEY unset). */
export class BillingNotConfigured extends Schema.TaggedError<BillingNotConfigured>()("BillingNotConfigured", {}) {
  override get message() {
    return "billing is not configured on this service: the operator has not set STRIPE_SECRET_KEY"
  }
}

/** The provider could not be reached, or failed on its side (a 5xx, a time-out, a 429); nothing was done. */
export class PaymentProviderUnavailable extends Schema.TaggedError<PaymentProviderUnavailable>()("PaymentProviderUnavailable", {
  reason: Schema.String
}) {
  override get message() {
    return `the payment provider cannot be reached at the moment; nothing was changed, try again shortly (${this.reason})`
  }
}

/** The provider refused the call (a bad key, a price it does not know): the service's configuration is at fault. */
export class PaymentProviderRefused extends Schema.TaggedError<PaymentProviderRefused>()("PaymentProviderRefused", {
  status: Schema.Number,
  reason: Schema.String
}) {
  override get message() {
    return `the payment provider refused the request (${this.status}): ${this.reason}`
  }
}

export type PaymentGatewayError = BillingNotConfigured | PaymentProviderUnavailable | PaymentProviderRefused

export interface NewCustomer {
  readonly organizationId: OrganizationId
  readonly name: string
  /** The same key makes the same customer, once, however often it is asked. */
  readonly idempotencyKey: string
}

export interface NewCheckout {
  readonly organizationId: OrganizationId
  readonly customerId: string
  readonly priceId: string
  readonly successUrl: string
  readonly cancelUrl: string
}

/** The payment provider: customers, hosted checkout and portal pages, subscriptions. */
export class PaymentGateway extends Context.Tag("roster/PaymentGateway")<PaymentGateway, {
  /** Whether a provider is configured; without one every call fails with `BillingNotConfigured`. */
  readonly configured: boolean
  /** Makes the organization's customer; its id. */
  readonly createCustomer: (customer: NewCustomer) => Effect.Effect<string, PaymentGatewayError>
  /** A hosted checkout page subscribing the customer to the price; its URL. */
  readonly createCheckoutSession: (checkout: NewCheckout) => Effect.Effect<string, PaymentGatewayError>
  /** A hosted page where the customer manages their subscription and payment methods; its URL. */
  readonly createPortalSession: (customerId: string, returnUrl: string) => Effect.Effect<string, PaymentGatewayError>
  readonly retrieveSubscription: (subscriptionId: string) => Effect.Effect<SubscriptionSnapshot, PaymentGatewayError>
  /** The customer's subscriptions, of every status, newest first. */
  readonly listSubscriptions: (customerId: string) => Effect.Effect<ReadonlyArray<SubscriptionSnapshot>, PaymentGatewayError>
}>() {}

/** The prices the organization may subscribe to, by tier, and where the provider's pages send people back. */
export class BillingSettings extends Context.Tag("roster/BillingSettings")<BillingSettings, {
  /** STRIPE_PRICE_PRO and STRIPE_PRICE_ENTERPRISE, when set. */
  readonly prices: { readonly pro: string | null; readonly enterprise: string | null }
  /** Where checkout and the portal send people back unless the request says (PUBLIC_BASE_URL). */
  readonly returnUrl: string
}>() {}
