import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import {
  billingDescription,
  BillingSubscription,
  CheckoutSession,
  CreateCheckoutSessionRequest,
  PortalSession
} from "../shared/billing-schemas.js"
import { API_ROUTE_ERRORS, POST_ERRORS } from "../shared/wire-errors.js"
import { Authentication } from "./authentication.js"
import { problems } from "./problems.js"
import { NoFields, optionalBody } from "../shared/action-body.js"

const PROVIDER_ERRORS = ["billing_disabled", "billing_not_configured", "payment_provider_unavailable", "payment_provider_error"] as const

export const BillingGroup = HttpApiGroup.make("billing")
  .add(
    HttpApiEndpoint.get("subscription", "/billing/subscription")
      .addSuccess(BillingSubscription)
      .pipe(problems.endpoint("billing_disabled"))
      .annotateContext(OpenApi.annotations({
        summary: "Get the billing subscription",
        description: "The plan, its status and period, its limits and what the organization uses of them; on every " +
          "deployment with plans, with or without a payment provider (503 `billing_disabled` on one without plans). " +
          "Scope `*`."
      }))
  )
  .add(
    HttpApiEndpoint.post("createCheckoutSession", "/billing/create-checkout-session")
      .setPayload(CreateCheckoutSessionRequest)
      .addSuccess(CheckoutSession)
      .pipe(problems.endpoint("conflict", ...PROVIDER_ERRORS, ...POST_ERRORS))
      .annotateContext(OpenApi.annotations({
        summary: "Start a checkout",
        description: "A hosted checkout page of the payment provider subscribing the organization to the plan of " +
          "`price_id`, which must be one of the configured prices (400 naming `price_id` otherwise). The organization's " +
          "customer at the provider is made on the first call, once. 409 `conflict` while a subscription is paid for: " +
          "plans change in the customer portal. Scope `*`."
      }))
  )
  .add(
    HttpApiEndpoint.post("customerPortal", "/billing/customer-portal")
      .setPayload(NoFields)
      .addSuccess(PortalSession)
      .pipe(problems.endpoint(...PROVIDER_ERRORS, ...POST_ERRORS))
      .annotate(OpenApi.Transform, optionalBody)
      .annotateContext(OpenApi.annotations({
        summary: "Open the customer portal",
        description: "A hosted page of the payment provider where the owner changes or cancels the plan and manages " +
          "payment methods and invoices; it sends them back to PUBLIC_BASE_URL. Scope `*`."
      }))
  )
  .add(
    HttpApiEndpoint.post("syncSubscription", "/billing/sync-subscription")
      .setPayload(NoFields)
      .addSuccess(BillingSubscription)
      .pipe(problems.endpoint(...PROVIDER_ERRORS, ...POST_ERRORS))
      .annotate(OpenApi.Transform, optionalBody)
      .annotateContext(OpenApi.annotations({
        summary: "Sync the subscription from the payment provider",
        description: "Reads the organization's subscription from the provider (a paid one if there is one, else the " +
          "newest), applies it as events would, and answers the billing subscription. Scope `*`."
      }))
  )
  .middleware(Authentication)
  .pipe(problems.group(...API_ROUTE_ERRORS))
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Billing")
  .annotate(OpenApi.Description, billingDescription)
