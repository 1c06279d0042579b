import { HttpApiBuilder, HttpMiddleware, HttpRouter, type HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { createServer } from "node:http"
import { DashboardLive } from "./dashboard/index.js"
import { OverviewApi, OverviewApiLive } from "./overview/index.js"
import { makeSubscriberDirectRoutes, ProblemRendererLive, ReferenceApi, ReferenceApiLive } from "./reference/index.js"
import { type DirectLane, makeDirectLane, withDirectLane } from "./shared/direct-lane.js"
import { HttpSettings, type HttpSettingsShape } from "./shared/http-settings.js"
import { ProviderEventReaders, type ProviderEventReadersShape } from "./shared/provider-event-readers.js"
import { compressAnswers } from "./shared/compression.js"
import { docsRoutes } from "./shared/docs.js"
import { METRICS_PATH } from "./shared/metrics-endpoint.js"
import { type RequestObserver, requestLogging } from "./shared/request-log.js"
import { makeRouteTable, routesOf } from "./shared/route-table.js"
import { httpRequestDuration, httpRequests } from "../observability/index.js"

export { OverviewApi } from "./overview/index.js"
export { ReferenceApi } from "./reference/index.js"
export { CurrentPrincipal } from "./shared/current-principal.js"
export { CurrentSessionUser } from "./shared/current-session-user.js"
export { type ErrorCode, errorCatalog, errorCodes } from "./shared/error-catalog.js"
export { HttpSettings, type HttpSettingsShape } from "./shared/http-settings.js"
export { ProviderEventReaders, type ProviderEventReadersShape } from "./shared/provider-event-readers.js"
export { CurrentRequestId, loggablePath, RequestLine, traceableAttribute } from "./shared/request-log.js"
export { SESSION_COOKIE } from "./shared/session-cookie.js"

const MAX_PATH_PARAMETER_LENGTH = 1024

/**
 * The two wire forms over the same use cases: `reference` (bare JSON, `/api/v1`, cursor pages,
 * problem details) and `overview` (envelopes, `/v1` and `/api/v1`, numbered pages, error envelopes).
 */
export type WireForm = "reference" | "overview"

const wireForms: Record<WireForm, typeof ReferenceApiLive | typeof OverviewApiLive> = {
  reference: ReferenceApiLive,
  overview: OverviewApiLive
}

/**
 * Counts each request by method, route template (not the path, whose ids would make a series
 * each) and status, and times it.
 */
const observeRequests = (form: WireForm): RequestObserver => {
  const routes = makeRouteTable([
    ...routesOf(form === "reference" ? ReferenceApi : OverviewApi),
    ...docsRoutes,
    { method: "GET", path: METRICS_PATH, body: "json" }
  ])
  return (method, path, status, durationMs) => {
    // The dashboard's pages are counted together: their paths name organizations and records.
    const route = routes.routeAt(method, path)?.path ?? (path === "/app" || path.startsWith("/app/") ? "/app/*" : "unmatched")
    httpRequests.inc({ method, route, status })
    httpRequestDuration.observe({ method, route }, durationMs / 1000)
  }
}

/**
 * Every route of a form (the API, probes, error pages, OpenAPI and docs) and the dashboard, served
 * on the `HttpServer` that `server` makes. The routes are built first, then the server: a server
 * that listened while its routes were still being built would take connections it could not answer,
 * and a request sent then would wait forever. Needs the use cases the handlers of the form run.
 */
const makeHttpApiLive = <E, R>(
  form: WireForm,
  settings: HttpSettingsShape,
  eventReaders: ProviderEventReadersShape,
  server: Layer.Layer<HttpServer.HttpServer, E, R>
) =>
  HttpApiBuilder.serve((app) =>
    requestLogging(compressAnswers(app), settings.metricsToken == null ? undefined : observeRequests(form))
  ).pipe(
    Layer.provideMerge(server),
    // The dashboard is served beside either form, on the same use cases.
    Layer.provide(Layer.merge(wireForms[form], DashboardLive)),
    Layer.provide(Layer.succeed(HttpSettings, settings)),
    Layer.provide(Layer.succeed(ProviderEventReaders, eventReaders)),
    // Path parameters as long as the longest email address, percent-encoded, still route. A path
    // routes as it is written, letter case and slashes included, as the routes are declared and as
    // the middleware that bounds bodies and counts requests against rate limits reads it.
    Layer.provide(HttpRouter.setRouterConfig({
      maxParamLength: MAX_PATH_PARAMETER_LENGTH,
      caseSensitive: true,
      ignoreDuplicateSlashes: false
    })),
    // What the routes read files and make ETags with, before any server exists.
    Layer.provide(NodeHttpServer.layerContext)
  )

export interface HttpServerOptions {
  readonly form: WireForm
  readonly settings: HttpSettingsShape
  /** How the payment and email providers' event bodies read (their adapters' readers). */
  readonly eventReaders: ProviderEventReadersShape
  /** 0 picks a free port; read the bound one from `HttpServer.HttpServer`'s `address`. */
  readonly port: number
  readonly host: string
  /**
   * Whether the form's direct lane serves its busiest requests (shared/direct-lane.ts); on unless
   * `false` (the service reads it from `HTTP_DIRECT_LANE`).
   */
  readonly directLane?: boolean
  /**
   * Whether each request runs in a span (`http.server POST`, its parent taken from a
   * `traceparent` header); off unless `true`. A traced server has no direct lane: every request
   * goes through the HttpApi, whose middleware makes the span.
   */
  readonly traced?: boolean
}

/**
 * The form's direct lane (shared/direct-lane.ts), where it has one: the reference form reads and
 * creates single subscribers there.
 */
const directLaneOf = (form: WireForm, settings: HttpSettingsShape) =>
  form === "reference"
    ? Effect.flatMap(makeSubscriberDirectRoutes, (routes) =>
      makeDirectLane({
        routes,
        observe: settings.metricsToken == null ? undefined : observeRequests(form)
      })).pipe(
        Effect.provide(ProblemRendererLive.pipe(Layer.provide(Layer.succeed(HttpSettings, settings))))
      )
    : Effect.succeed<DirectLane | undefined>(undefined)

/**
 * How long an idle connection is kept open for the next request: longer than the 60 s a load
 * balancer or proxy keeps its own connections to the service idle (AWS's and nginx's defaults), so
 * that the service never closes a connection as the other side sends a request on it, which that
 * side would see reset. Node's default is 5 s; a client that keeps connections as long (undici's
 * fetch does, less a second) had requests reset under load.
 */
const KEEP_ALIVE_MS = 65_000

const nodeServer = () => {
  const server = createServer()
  server.keepAliveTimeout = KEEP_ALIVE_MS
  return server
}

/** A form listening on a Node HTTP server; the server stays open while the layer lives. */
export const makeHttpServerLive = (options: HttpServerOptions) => {
  const server = Layer.unwrapEffect(Effect.map(
    options.directLane === false || options.traced === true
      ? Effect.succeed(undefined)
      : directLaneOf(options.form, options.settings),
    (lane) =>
      NodeHttpServer.layer(
        () => lane === undefined ? nodeServer() : withDirectLane(nodeServer(), lane),
        { port: options.port, host: options.host }
      )
  ))
  const served = makeHttpApiLive(options.form, options.settings, options.eventReaders, server)
  // Untraced, no span per request (its URL parsed, its headers copied).
  return options.traced === true ? served : HttpMiddleware.withTracerDisabledWhen(served, () => true)
}
