import { HttpApiBuilder } from "@effect/platform"
import { Layer } from "effect"
import { makeApiMiddlewareLive } from "../shared/api-middleware.js"
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
import { OverviewApi } from "./api.js"
import { OverviewAuthenticationLive, OverviewSessionAuthenticationLive } from "./authentication.js"
import { EnvelopeRendererLive } from "./errors.js"
import { declaredUrlOf, isOverviewApiPath } from "./paths.js"
import { PreferenceCenterHandlersLive, PreferencesHandlersLive } from "./preferences-handlers.js"
import { AdminHandlersLive } from "./admin-handlers.js"
import { ApiKeysHandlersLive } from "./api-keys-handlers.js"
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
import { ImportsHandlersLive } from "./imports-handlers.js"
import { SubscribersHandlersLive } from "./subscribers-handlers.js"
import { TagsHandlersLive } from "./tags-handlers.js"
import { WebhooksHandlersLive } from "./webhooks-handlers.js"

export { OverviewApi }
export { LOCAL_PREFIX, OVERVIEW_PREFIX } from "./paths.js"

/**
 * The design-overview wire form (`/v1` and `/api/v1`, `data` envelopes, numbered pages, error
 * envelopes) with its middleware and docs, ready for `HttpApiBuilder.serve`. Needs the use cases
 * Auth, Organizations, Subscribers, Tags, ApiKeys, Webhooks, Readiness, RateLimits and Idempotency, and HttpSettings.
 */
export const OverviewApiLive = Layer.mergeAll(
  makeApiMiddlewareLive(OverviewApi, { isApiPath: isOverviewApiPath, declaredUrlOf }),
  DocsLive,
  MetricsLive
).pipe(
  Layer.provideMerge(HttpApiBuilder.api(OverviewApi)),
  Layer.provide([
    makeAuthHandlersLive(OverviewApi),
    ImportsHandlersLive,
    SubscribersHandlersLive,
    TagsHandlersLive,
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
    ApiKeysHandlersLive,
    AdminHandlersLive,
    PreferencesHandlersLive,
    PreferenceCenterHandlersLive,
    makePreferencePageHandlersLive(OverviewApi),
    makeSignUpPageHandlersLive(OverviewApi),
    makeUnsubscribeHandlersLive(OverviewApi),
    makeProviderEventsHandlersLive(OverviewApi),
    makePaymentEventsHandlersLive(OverviewApi),
    makeProbesHandlersLive(OverviewApi),
    makeServiceIndexHandlersLive(OverviewApi, "/v1"),
    makeErrorDocsHandlersLive(OverviewApi)
  ]),
  Layer.provide([OverviewAuthenticationLive, OverviewSessionAuthenticationLive, EnvelopeRendererLive]),
  Layer.provide(RequestAuthenticationLive)
)
