import { HttpApiBuilder, HttpRouter } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Config, Effect, Layer } from "effect"
import { createServer } from "node:http"
import { HttpSettingsLive } from "./http-settings.js"
import { OverviewApiLive } from "./overview/index.js"
import { ReferenceApiLive } from "./reference/index.js"
import { requestLogging } from "./request-log.js"

export { CurrentPrincipal } from "./current-principal.js"
export { CurrentSessionUser } from "./current-session-user.js"
export { SESSION_COOKIE } from "./session-cookie.js"
export { type ErrorCode, errorCatalog, errorCodes } from "./error-catalog.js"
export { HttpSettings, HttpSettingsLive } from "./http-settings.js"
export { OverviewApi } from "./overview/index.js"
export { ReferenceApi } from "./reference/index.js"

const MAX_PATH_PARAMETER_LENGTH = 1024

/**
 * The wire form chosen by `API_FORM` (`reference`, the default, or `overview`) with its middleware
 * and docs; another value stops the start with a message naming the variable.
 */
const WireFormLive = Layer.unwrapEffect(
  Config.literal("reference", "overview")("API_FORM").pipe(
    Config.withDefault("reference" as const),
    Effect.map((form) => form === "overview" ? OverviewApiLive : ReferenceApiLive)
  )
)

/**
 * Every route (the API, probes, error pages, OpenAPI and docs), served on whatever `HttpServer`
 * is provided. Needs the use cases Auth, Organizations, Subscribers, Tags, ApiKeys, Webhooks, Admin,
 * Readiness, RateLimits and Idempotency; reads `API_FORM`, `PORT`, `PUBLIC_BASE_URL`, `ERRORS_BASE_URL` and
 * `NODE_ENV`.
 */
export const HttpApiLive = HttpApiBuilder.serve(requestLogging).pipe(
  Layer.provide(WireFormLive),
  Layer.provide(HttpSettingsLive),
  // Path parameters as long as the longest email address, percent-encoded, still route.
  Layer.provide(HttpRouter.setRouterConfig({ maxParamLength: MAX_PATH_PARAMETER_LENGTH }))
)

export interface HttpServerOptions {
  /** 0 picks a free port; read the bound one from `HttpServer.HttpServer`'s `address`. */
  readonly port: number
  readonly host?: string | undefined
}

/** {@link HttpApiLive} listening on a Node HTTP server; the server stays open while the layer lives. */
export const makeHttpServerLive = (options: HttpServerOptions) =>
  HttpApiLive.pipe(
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: options.port, host: options.host ?? "0.0.0.0" }))
  )
