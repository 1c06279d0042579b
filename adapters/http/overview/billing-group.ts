import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import {
  billingDescription,
  BillingSubscription,
  CheckoutSession,
  CreateCheckoutSessionRequest,
  PortalSession
} from "../shared/billing-schemas.js"
import { OverviewAuthentication } from "./authentication.js"
import { OVERVIEW_PREFIX } from "./paths.js"
import { Single } from "./schemas.js"
import { NoFields, optionalBody } from "../shared/action-body.js"

const BillingSubscriptionData = Single(BillingSubscription, "BillingSubscriptionData")

export const BillingGroup = HttpApiGroup.make("billing")
  .add(
    HttpApiEndpoint.get("subscription", "/billing/subscription")
      .addSuccess(BillingSubscriptionData)
      .annotateContext(OpenApi.annotations({
        summary: "Get the billing subscription",
        description: "The plan, its status and period, its limits and what the organization uses of them; on every " +
          "deployment, with or without a payment provider. Scope `*`."
      }))
  )
  .add(
    HttpApiEndpoint.post("createCheckoutSession", "/billing/create-checkout-session")
      .setPayload(CreateCheckoutSessionRequest)
      .addSuccess(Single(CheckoutSession, "CheckoutSessionData"))
      .annotateContext(OpenApi.annotations({
        summary: "Start a checkout",
        description: "A hosted checkout page of the payment provider subscribing the organization to the plan of " +
          "`price_id`, which must be one of the configured prices (400 naming `price_id` otherwise). 409 `conflict` " +
          "while a subscription is paid for: plans change in the customer portal. Scope `*`."
      }))
  )
  .add(
    HttpApiEndpoint.post("customerPortal", "/billing/customer-portal")
      .setPayload(NoFields)
      .addSuccess(Single(PortalSession, "PortalSessionData"))
      .annotate(OpenApi.Transform, optionalBody)
      .annotateContext(OpenApi.annotations({
        summary: "Open the customer portal",
        description: "A hosted page of the payment provider where the owner changes or cancels the plan and manages " +
          "payment methods and invoices. Scope `*`."
      }))
  )
  .add(
    HttpApiEndpoint.post("syncSubscription", "/billing/sync-subscription")
      .setPayload(NoFields)
      .addSuccess(BillingSubscriptionData)
      .annotate(OpenApi.Transform, optionalBody)
      .annotateContext(OpenApi.annotations({
        summary: "Sync the subscription from the payment provider",
        description: "Reads the organization's subscription from the provider, applies it, and answers the billing " +
          "subscription. Scope `*`."
      }))
  )
  .middleware(OverviewAuthentication)
  .prefix(OVERVIEW_PREFIX)
  .annotate(OpenApi.Title, "Billing")
  .annotate(OpenApi.Description, billingDescription)
