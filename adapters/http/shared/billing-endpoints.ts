import { HttpApiEndpoint } from "@effect/platform"
import { withoutBody } from "./action-body.js"
import { CreateCheckoutSessionRequest } from "./billing-schemas.js"
import { sharedEndpoint } from "./endpoint-description.js"
import { POST_ERRORS } from "./wire-errors.js"

/** What the payment provider's part of billing can answer. */
const PROVIDER_ERRORS = ["billing_disabled", "billing_not_configured", "payment_provider_unavailable", "payment_provider_error"] as const

/** The billing endpoints as every wire form describes them (the overview form in fewer words). */
export const billingEndpoints = {
  subscription: sharedEndpoint({
    endpoint: HttpApiEndpoint.get("subscription", "/billing/subscription"),
    summary: "Get the billing subscription",
    description: "The plan, its status and period, its limits and what the organization uses of them; on every " +
      "deployment with plans, with or without a payment provider (503 `billing_disabled` on one without plans). " +
      "Scope `*`.",
    errors: ["billing_disabled"]
  }),
  createCheckoutSession: sharedEndpoint({
    endpoint: HttpApiEndpoint.post("createCheckoutSession", "/billing/create-checkout-session")
      .setPayload(CreateCheckoutSessionRequest),
    summary: "Start a checkout",
    description: "A hosted checkout page of the payment provider subscribing the organization to the plan of " +
      "`price_id`, which must be one of the configured prices (400 naming `price_id` otherwise). The organization's " +
      "customer at the provider is made on the first call, once. 409 `conflict` while a subscription is paid for: " +
      "plans change in the customer portal. Scope `*`.",
    errors: ["conflict", ...PROVIDER_ERRORS, ...POST_ERRORS]
  }),
  customerPortal: sharedEndpoint({
    endpoint: HttpApiEndpoint.post("customerPortal", "/billing/customer-portal")
      .pipe(withoutBody),
    summary: "Open the customer portal",
    description: "A hosted page of the payment provider where the owner changes or cancels the plan and manages " +
      "payment methods and invoices; it sends them back to PUBLIC_BASE_URL. Scope `*`.",
    errors: [...PROVIDER_ERRORS, ...POST_ERRORS]
  }),
  syncSubscription: sharedEndpoint({
    endpoint: HttpApiEndpoint.post("syncSubscription", "/billing/sync-subscription")
      .pipe(withoutBody),
    summary: "Sync the subscription from the payment provider",
    description: "Reads the organization's subscription from the provider (a paid one if there is one, else the " +
      "newest), applies it as events would, and answers the billing subscription. Scope `*`.",
    errors: [...PROVIDER_ERRORS, ...POST_ERRORS]
  })
}
