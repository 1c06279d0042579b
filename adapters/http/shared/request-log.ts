import { HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import type { Principal } from "@roster/application"
import { Context, Effect, Exit, FiberRef, Option } from "effect"
import { CurrentRequestId, logRequestLine, RequestLine, RequestLines } from "../../observability/index.js"
import { randomUUID } from "node:crypto"
import { establishedPrincipalOf } from "./authentication.js"
import { pathOf } from "./request-path.js"

export { CurrentRequestId, logRequestLine, RequestLine, RequestLines }

/** An incoming request id is echoed only when it is short and plain. */
const saneRequestId = /^[A-Za-z0-9._:/+=-]{1,128}$/

/** A path segment that holds an email address (as typed or percent-encoded). */
const emailSegment = /[^/]*(?:@|%40)[^/]*/gi

/** The path as logs may keep it: email addresses in it (`/by-email/ada@example.com`) are masked. */
export const loggablePath = (path: string): string =>
  path.includes("@") || path.includes("%40") ? path.replace(emailSegment, "***") : path

/**
 * What a span keeps of a request's attributes (`attribute` of adapters/opentelemetry): the path
 * and URL with email addresses masked, as logs keep them, and no query string or `Referer`, where
 * preference and sign-in tokens travel.
 */
export const traceableAttribute = (key: string, value: unknown): unknown => {
  switch (key) {
    case "url.path":
      return typeof value === "string" ? loggablePath(value) : value
    case "url.full": {
      if (typeof value !== "string" || !URL.canParse(value)) return undefined
      const url = new URL(value)
      return `${url.origin}${loggablePath(url.pathname)}`
    }
    case "url.query":
    case "http.request.header.referer":
      return undefined
    default:
      return value
  }
}

/** The caller as a request line names it: the API key's id, or the session's user. */
const credentialOf = (principal: Principal | undefined) => {
  if (principal === undefined) return { organization_id: null, credential: null }
  const credential = principal.credential.kind === "api_key"
    ? `api_key:${principal.credential.id}`
    : `user:${principal.credential.userId}`
  return { organization_id: principal.organization.id, credential }
}

/** The request's id: a sane incoming `X-Request-Id`, else a new UUID. */
export const requestIdOf = (incoming: string | undefined): string =>
  incoming !== undefined && saneRequestId.test(incoming) ? incoming : randomUUID()

/**
 * The headers every answer carries: its request id, and `X-Content-Type-Options: nosniff` so that
 * no browser reads an answer as another type than the one it declares.
 */
export const tagAnswer = (response: HttpServerResponse.HttpServerResponse, requestId: string) =>
  HttpServerResponse.setHeaders(response, { "X-Request-Id": requestId, "X-Content-Type-Options": "nosniff" })

/** The line logged for a request once it is answered. */
export const requestLineOf = (request: {
  readonly method: string
  readonly path: string
  readonly status: number
  readonly durationMs: number
  readonly clientAddress: string | null
  readonly userAgent: string | null
  readonly principal: Principal | undefined
}): RequestLine =>
  new RequestLine({
    method: request.method,
    path: loggablePath(request.path),
    status: request.status,
    duration_ms: request.durationMs,
    client_address: request.clientAddress,
    user_agent: request.userAgent,
    ...credentialOf(request.principal)
  })

/** Told of every request once it is answered (the metrics, when they are served). */
export type RequestObserver = (method: string, path: string, status: number, durationMs: number) => void

/**
 * Gives every response an `X-Request-Id` (a sane incoming one, else a new UUID) and
 * `X-Content-Type-Options: nosniff`, tags every log
 * line of the request with it, and logs one line per request: method, path (addresses masked),
 * status, duration, client address, user agent, and the organization and credential that
 * authenticated it (never a secret).
 *
 * Each request is served by a fiber of its own, which ends with it, so the request id is set on
 * that fiber rather than set and restored around the request. This runs on every request, so it
 * is written with as few steps as it can.
 */
export const requestLogging = <E, R>(app: HttpApp.Default<E, R>, observe?: RequestObserver): HttpApp.Default<E, R> =>
  Effect.withFiberRuntime((fiber) => {
    const request = Context.unsafeGet(fiber.currentContext, HttpServerRequest.HttpServerRequest)
    const lines = Context.get(fiber.currentContext, RequestLines)
    const requestId = requestIdOf(request.headers["x-request-id"])
    const startedAt = Date.now()
    const served = Effect.flatMap(Effect.exit(app), (exit) => {
      const status = Exit.isSuccess(exit) ? exit.value.status : 500
      const durationMs = Date.now() - startedAt
      observe?.(request.method, pathOf(request), status, durationMs)
      const line = () =>
        requestLineOf({
          method: request.method,
          path: pathOf(request),
          status,
          durationMs,
          clientAddress: Option.getOrNull(request.remoteAddress),
          userAgent: request.headers["user-agent"] ?? null,
          principal: establishedPrincipalOf(request)
        })
      return Effect.zipRight(logRequestLine(lines, requestId, line), exit)
    })
    // The answer is sent before this middleware sees it: the header goes on as it is sent.
    const tagged = HttpApp.appendPreResponseHandler((_request, response) =>
      Effect.succeed(tagAnswer(response, requestId))
    )
    return Effect.zipRight(Effect.zipRight(FiberRef.set(CurrentRequestId, requestId), tagged), served)
  })
