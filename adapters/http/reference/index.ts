import { HttpApiBuilder } from "@effect/platform"
import { Layer } from "effect"
import { DocsLive } from "../docs.js"
import { AdminHandlersLive } from "./admin-handlers.js"
import { ReferenceApi } from "./api.js"
import { ApiKeysHandlersLive } from "./api-keys-handlers.js"
import { AuthHandlersLive } from "./auth-handlers.js"
import { ApiMiddlewareLive } from "./api-middleware.js"
import { AuthenticationLive, RequestAuthenticationLive, SessionAuthenticationLive } from "./authentication.js"
import { ErrorDocsHandlersLive } from "./error-docs-handlers.js"
import { ProbesHandlersLive } from "./probes-handlers.js"
import { SubscribersHandlersLive } from "./subscribers-handlers.js"
import { TagsHandlersLive } from "./tags-handlers.js"
import { WebhooksHandlersLive } from "./webhooks-handlers.js"

export { ReferenceApi }
export { IDEMPOTENCY_KEY_HEADER, RATE_LIMIT_HEADERS, REPLAYED_HEADER } from "./api-v1.js"
export { MAX_BODY_BYTES, MAX_BODY_DEPTH } from "../problem-middleware.js"

/**
 * The reference wire form (`/api/v1`, bare JSON, cursor pages, problem details) with its
 * middleware and docs, ready for `HttpApiBuilder.serve`. Needs the use cases Auth, Organizations,
 * Subscribers, Tags, ApiKeys, Webhooks, Admin, Readiness, RateLimits and Idempotency, and HttpSettings.
 */
export const ReferenceApiLive = Layer.mergeAll(ApiMiddlewareLive, DocsLive).pipe(
  Layer.provideMerge(HttpApiBuilder.api(ReferenceApi)),
  Layer.provide([
    AuthHandlersLive,
    SubscribersHandlersLive,
    TagsHandlersLive,
    ApiKeysHandlersLive,
    WebhooksHandlersLive,
    AdminHandlersLive,
    ProbesHandlersLive,
    ErrorDocsHandlersLive
  ]),
  Layer.provide([AuthenticationLive, SessionAuthenticationLive]),
  Layer.provide(RequestAuthenticationLive)
)
