import { HttpApiBuilder } from "@effect/platform"
import { Layer } from "effect"
import { DocsLive } from "../docs.js"
import { AdminHandlersLive } from "./admin-handlers.js"
import { ReferenceApi } from "./api.js"
import { ApiKeysHandlersLive } from "./api-keys-handlers.js"
import { AuthHandlersLive } from "./auth-handlers.js"
import { AuthenticationLive, SessionAuthenticationLive } from "./authentication.js"
import { ErrorDocsHandlersLive } from "./error-docs-handlers.js"
import { ProblemsLive } from "./problem-middleware.js"
import { ProbesHandlersLive } from "./probes-handlers.js"
import { SubscribersHandlersLive } from "./subscribers-handlers.js"
import { TagsHandlersLive } from "./tags-handlers.js"

export { ReferenceApi }
export { MAX_BODY_BYTES, MAX_BODY_DEPTH } from "./problem-middleware.js"

/**
 * The reference wire form (`/api/v1`, bare JSON, cursor pages, problem details) with its
 * middleware and docs, ready for `HttpApiBuilder.serve`. Needs the use cases Auth, Organizations,
 * Subscribers, Tags, ApiKeys, Admin and Readiness, and HttpSettings.
 */
export const ReferenceApiLive = Layer.mergeAll(ProblemsLive, DocsLive).pipe(
  Layer.provideMerge(HttpApiBuilder.api(ReferenceApi)),
  Layer.provide([
    AuthHandlersLive,
    SubscribersHandlersLive,
    TagsHandlersLive,
    ApiKeysHandlersLive,
    AdminHandlersLive,
    ProbesHandlersLive,
    ErrorDocsHandlersLive
  ]),
  Layer.provide([AuthenticationLive, SessionAuthenticationLive])
)
