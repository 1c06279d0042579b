import { HttpApiBuilder } from "@effect/platform"
import { Billing } from "@roster/application"
import { Effect } from "effect"
import { toBillingSubscription, toCheckoutRequest } from "../shared/billing-schemas.js"
import { respond } from "../shared/respond.js"
import { OverviewApi } from "./api.js"
import { dataOf } from "./pages.js"

export const BillingHandlersLive = HttpApiBuilder.group(OverviewApi, "billing", (handlers) =>
  Effect.map(Billing, (billing) =>
    handlers
      .handle("subscription", () => respond(billing.subscription, (view) => dataOf(toBillingSubscription(view))))
      .handle("createCheckoutSession", ({ payload }) =>
        respond((caller) => billing.createCheckoutSession(caller, toCheckoutRequest(payload)), (session) =>
          dataOf({ checkout_url: session.checkoutUrl })))
      .handle("customerPortal", () =>
        respond((caller) => billing.customerPortal(caller), (session) => dataOf({ portal_url: session.portalUrl })))
      .handle("syncSubscription", () =>
        respond(billing.syncSubscription, (view) => dataOf(toBillingSubscription(view))))))
