import { HttpApiBuilder } from "@effect/platform"
import { Layer } from "effect"
import { makeApiMiddlewareLive } from "../shared/api-middleware.js"
import { isApiPath } from "../shared/api-v1.js"
import { makeAuthHandlersLive } from "../shared/auth-handlers.js"
import { RequestAuthenticationLive } from "../shared/authentication.js"
import { DocsLive } from "../shared/docs.js"
import { MetricsLive } from "../shared/metrics-endpoint.js"
import { makeErrorDocsHandlersLive } from "../shared/error-docs-handlers.js"
import { makeProbesHandlersLive } from "../shared/probes-handlers.js"
import { makeServiceIndexHandlersLive } from "../shared/service-index.js"
import { makeProviderEventsHandlersLive } from "../shared/provider-events.js"
import { makePaymentEventsHandlersLive } from "../shared/payment-events.js"
import { makePreferencePageHandlersLive } from "../shared/preference-page.js"
import { makeSignUpPageHandlersLive } from "../shared/sign-up-page.js"
import { makeUnsubscribeHandlersLive } from "../shared/unsubscribe.js"
import { AdminHandlersLive } from "./admin-handlers.js"
import { ReferenceApi } from "./api.js"
import { ApiKeysHandlersLive } from "./api-keys-handlers.js"
import { AuthenticationLive, SessionAuthenticationLive } from "./authentication.js"
import { EmailsHandlersLive } from "./emails-handlers.js"
import { NotesHandlersLive } from "./notes-handlers.js"
import { SettingsHandlersLive } from "./settings-handlers.js"
import { BillingHandlersLive } from "./billing-handlers.js"
import { TemplatesHandlersLive } from "./templates-handlers.js"
import { FormsHandlersLive } from "./forms-handlers.js"
import { SegmentsHandlersLive } from "./segments-handlers.js"
import { CampaignsHandlersLive } from "./campaigns-handlers.js"
import { TriggersHandlersLive } from "./triggers-handlers.js"
import { SequencesHandlersLive } from "./sequences-handlers.js"
import { PreferenceCenterHandlersLive } from "./preference-center-handlers.js"
import { ProblemRendererLive } from "./problems.js"
import { ImportsHandlersLive } from "./imports-handlers.js"
import { SubscribersHandlersLive } from "./subscribers-handlers.js"
import { TagsHandlersLive } from "./tags-handlers.js"
import { WebhooksHandlersLive } from "./webhooks-handlers.js"

export { ReferenceApi }
export { ProblemRendererLive } from "./problems.js"
export { makeSubscriberDirectRoutes } from "./subscribers-direct-routes.js"

/**
 * The reference wire form (`/api/v1`, bare JSON, cursor pages, problem details) with its
 * middleware and docs, ready for `HttpApiBuilder.serve`. Needs the use cases Auth, Organizations,
 * Subscribers, Tags, ApiKeys, Webhooks, Admin, Readiness, RateLimits and Idempotency, and HttpSettings.
 */
export const ReferenceApiLive = Layer.mergeAll(makeApiMiddlewareLive(ReferenceApi, { isApiPath }), DocsLive, MetricsLive).pipe(
  Layer.provideMerge(HttpApiBuilder.api(ReferenceApi)),
  Layer.provide([
    makeAuthHandlersLive(ReferenceApi),
    ImportsHandlersLive,
    SubscribersHandlersLive,
    TagsHandlersLive,
    ApiKeysHandlersLive,
    WebhooksHandlersLive,
    NotesHandlersLive,
    TemplatesHandlersLive,
    FormsHandlersLive,
    SegmentsHandlersLive,
    CampaignsHandlersLive,
    TriggersHandlersLive,
    SequencesHandlersLive,
    EmailsHandlersLive,
    SettingsHandlersLive,
    BillingHandlersLive,
    AdminHandlersLive,
    PreferenceCenterHandlersLive,
    makePreferencePageHandlersLive(ReferenceApi),
    makeSignUpPageHandlersLive(ReferenceApi),
    makeUnsubscribeHandlersLive(ReferenceApi),
    makeProviderEventsHandlersLive(ReferenceApi),
    makePaymentEventsHandlersLive(ReferenceApi),
    makeProbesHandlersLive(ReferenceApi),
    makeServiceIndexHandlersLive(ReferenceApi, "/api/v1"),
    makeErrorDocsHandlersLive(ReferenceApi)
  ]),
  Layer.provide([AuthenticationLive, SessionAuthenticationLive, ProblemRendererLive]),
  Layer.provide(RequestAuthenticationLive)
)
