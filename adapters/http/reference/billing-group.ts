import { HttpApiGroup, OpenApi } from "@effect/platform"
import { billingEndpoints as billing } from "../shared/billing-endpoints.js"
import { billingDescription, BillingSubscription, CheckoutSession, PortalSession } from "../shared/billing-schemas.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"
import { Authentication } from "./authentication.js"
import { problems } from "./problems.js"

export const BillingGroup = HttpApiGroup.make("billing")
  .add(problems.declare(billing.subscription).addSuccess(BillingSubscription))
  .add(problems.declare(billing.createCheckoutSession).addSuccess(CheckoutSession))
  .add(problems.declare(billing.customerPortal).addSuccess(PortalSession))
  .add(problems.declare(billing.syncSubscription).addSuccess(BillingSubscription))
  .middleware(Authentication)
  .pipe(problems.group(...API_ROUTE_ERRORS))
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Billing")
  .annotate(OpenApi.Description, billingDescription)
