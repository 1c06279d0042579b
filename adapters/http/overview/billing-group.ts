import { HttpApiGroup, OpenApi } from "@effect/platform"
import { billingEndpoints as billing } from "../shared/billing-endpoints.js"
import { billingDescription, BillingSubscription, CheckoutSession, PortalSession } from "../shared/billing-schemas.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"
import { OverviewAuthentication } from "./authentication.js"
import { envelopes } from "./errors.js"
import { OVERVIEW_PREFIX } from "./paths.js"
import { Single } from "./schemas.js"

const BillingSubscriptionData = Single(BillingSubscription, "BillingSubscriptionData")

export const BillingGroup = HttpApiGroup.make("billing")
  .add(
    envelopes.declare({
      ...billing.subscription,
      description: "The plan, its status and period, its limits and what the organization uses of them; on every " +
        "deployment, with or without a payment provider. Scope `*`."
    }).addSuccess(BillingSubscriptionData)
  )
  .add(
    envelopes.declare({
      ...billing.createCheckoutSession,
      description: "A hosted checkout page of the payment provider subscribing the organization to the plan of " +
        "`price_id`, which must be one of the configured prices (400 naming `price_id` otherwise). 409 `conflict` " +
        "while a subscription is paid for: plans change in the customer portal. Scope `*`."
    }).addSuccess(Single(CheckoutSession, "CheckoutSessionData"))
  )
  .add(
    envelopes.declare({
      ...billing.customerPortal,
      description: "A hosted page of the payment provider where the owner changes or cancels the plan and manages " +
        "payment methods and invoices. Scope `*`."
    }).addSuccess(Single(PortalSession, "PortalSessionData"))
  )
  .add(
    envelopes.declare({
      ...billing.syncSubscription,
      description: "Reads the organization's subscription from the provider, applies it, and answers the billing " +
        "subscription. Scope `*`."
    }).addSuccess(BillingSubscriptionData)
  )
  .middleware(OverviewAuthentication)
  .pipe(envelopes.group(...API_ROUTE_ERRORS))
  .prefix(OVERVIEW_PREFIX)
  .annotate(OpenApi.Title, "Billing")
  .annotate(OpenApi.Description, billingDescription)
