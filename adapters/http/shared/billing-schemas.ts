import type { BillingView } from "@roster/application"
import { Schema } from "effect"
import { strictInput, Timestamp } from "./wire-fields.js"

/** Billing as every form shows and takes it (SPEC.md §2 billing subscription, §4.8). */

const Limit = (description: string) =>
  Schema.NullOr(Schema.Int).annotations({ description: `${description}; null for no limit` })

export const BillingSubscription = Schema.Struct({
  tier: Schema.String.annotations({ description: "the plan: `free`, `pro` or `enterprise`" }),
  status: Schema.String.annotations({
    description: "the payment provider's subscription status (`trialing`, `active`, `past_due`, `canceled`, " +
      "`unpaid`, `incomplete`, `incomplete_expired`, `paused`); `active` for an organization without a subscription"
  }),
  current_period_end: Schema.NullOr(Timestamp).annotations({
    description: "when the period paid for ends; a canceled or unpaid subscription falls back to `free` then. " +
      "null without a subscription"
  }),
  cancel_at_period_end: Schema.Boolean.annotations({ description: "whether the subscription ends with this period" }),
  max_subscribers: Limit("subscribers the plan allows"),
  max_emails_per_month: Limit("emails the plan allows a calendar month (UTC)"),
  emails_sent_this_month: Schema.Int.annotations({ description: "emails counted against this month's limit so far" }),
  subscriber_count: Schema.Int.annotations({ description: "subscribers the organization keeps" })
}).annotations({ identifier: "BillingSubscription" })

const ReturnUrl = (description: string) =>
  Schema.optionalWith(
    Schema.String.pipe(
      Schema.filter((s) => (URL.canParse(s) && /^https?:$/.test(new URL(s).protocol)) || "must be an absolute http or https URL"),
      Schema.maxLength(2048)
    ).annotations({ description }),
    { exact: true }
  )

export const CreateCheckoutSessionRequest = Schema.Struct({
  price_id: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(255)).annotations({
    description: "the price of the plan: the operator's STRIPE_PRICE_PRO or STRIPE_PRICE_ENTERPRISE"
  }),
  success_url: ReturnUrl("where the checkout sends the owner once paid; PUBLIC_BASE_URL unless given"),
  cancel_url: ReturnUrl("where the checkout sends the owner back without paying; PUBLIC_BASE_URL unless given")
}).annotations({ identifier: "CreateCheckoutSessionRequest", ...strictInput })

export const CheckoutSession = Schema.Struct({
  checkout_url: Schema.String.annotations({ description: "the payment provider's hosted checkout page; open it in a browser" })
}).annotations({ identifier: "CheckoutSession" })

export const PortalSession = Schema.Struct({
  portal_url: Schema.String.annotations({
    description: "the payment provider's hosted customer portal: change or cancel the plan, payment methods, invoices"
  })
}).annotations({ identifier: "PortalSession" })

export const toBillingSubscription = (view: BillingView): typeof BillingSubscription.Type => ({
  tier: view.tier,
  status: view.status,
  current_period_end: view.currentPeriodEnd?.toISOString() ?? null,
  cancel_at_period_end: view.cancelAtPeriodEnd,
  max_subscribers: view.maxSubscribers,
  max_emails_per_month: view.maxEmailsPerMonth,
  emails_sent_this_month: view.emailsSentThisMonth,
  subscriber_count: view.subscriberCount
})

export const toCheckoutRequest = (payload: typeof CreateCheckoutSessionRequest.Type) => ({
  priceId: payload.price_id,
  successUrl: payload.success_url,
  cancelUrl: payload.cancel_url
})

export const billingDescription = "The organization's plan, its limits and what it uses of them, and the payment " +
  "provider's hosted pages to subscribe (checkout) and to manage the subscription (customer portal). The provider's " +
  "events (`POST /webhooks/payment-events`) move the plan; `sync-subscription` asks the provider directly. Without " +
  "a payment provider (STRIPE_SECRET_KEY unset) the provider's actions answer 503 `billing_not_configured`; an " +
  "unreachable provider answers 503 `payment_provider_unavailable` with nothing changed. Owner only: scope `*`."
