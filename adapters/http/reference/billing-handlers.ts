import { HttpApiBuilder } from "@effect/platform"
import { Billing } from "@roster/application"
import { Effect } from "effect"
import { toBillingSubscription, toCheckoutRequest } from "../shared/billing-schemas.js"
import { respond } from "../shared/respond.js"
import { ReferenceApi } from "./api.js"

export const BillingHandlersLive = HttpApiBuilder.group(ReferenceApi, "billing", (handlers) =>
  Effect.map(Billing, (billing) =>
    handlers
      .handle("subscription", () => respond(billing.subscription, toBillingSubscription))
      .handle("createCheckoutSession", ({ payload }) =>
        respond((caller) => billing.createCheckoutSession(caller, toCheckoutRequest(payload)), (session) => ({
          checkout_url: session.checkoutUrl
        })))
      .handle("customerPortal", () =>
        respond((caller) => billing.customerPortal(caller), (session) => ({ portal_url: session.portalUrl })))
      .handle("syncSubscription", () => respond(billing.syncSubscription, toBillingSubscription))))
