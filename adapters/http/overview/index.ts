import { HttpApiBuilder } from "@effect/platform"
import { Layer } from "effect"
import { DocsLive } from "../docs.js"
import { makeAuthHandlersLive } from "../reference/auth-handlers.js"
import { RequestAuthenticationLive, SessionAuthenticationLive } from "../reference/authentication.js"
import { OverviewApi } from "./api.js"
import { ApiMiddlewareLive } from "./api-middleware.js"
import { OverviewAuthenticationLive } from "./authentication.js"
import { ErrorDocsHandlersLive } from "./error-docs-handlers.js"
import { ProbesHandlersLive } from "./probes-handlers.js"
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
export const OverviewApiLive = Layer.mergeAll(ApiMiddlewareLive, DocsLive).pipe(
  Layer.provideMerge(HttpApiBuilder.api(OverviewApi)),
  Layer.provide([
    makeAuthHandlersLive(OverviewApi),
    SubscribersHandlersLive,
    TagsHandlersLive,
    WebhooksHandlersLive,
    ProbesHandlersLive,
    ErrorDocsHandlersLive
  ]),
  Layer.provide([OverviewAuthenticationLive, SessionAuthenticationLive]),
  Layer.provide(RequestAuthenticationLive)
)
