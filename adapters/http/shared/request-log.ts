import { HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Clock, Effect, Exit } from "effect"
import { randomUUID } from "node:crypto"
import { pathOf } from "./request-path.js"

/** An incoming request id is echoed only when it is short and plain. */
const saneRequestId = /^[A-Za-z0-9._:/+=-]{1,128}$/

/**
 * Gives every response an `X-Request-Id` (a sane incoming one, else a new UUID), tags every log
 * line of the request with it, and logs one line per request: method, path, status, duration.
 */
export const requestLogging = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const incoming = request.headers["x-request-id"]
    const requestId = incoming !== undefined && saneRequestId.test(incoming) ? incoming : randomUUID()
    const startedAt = yield* Clock.currentTimeMillis
    yield* HttpApp.appendPreResponseHandler((_request, response) =>
      Effect.succeed(HttpServerResponse.setHeader(response, "X-Request-Id", requestId))
    )
    const exit = yield* app.pipe(Effect.annotateLogs("request_id", requestId), Effect.exit)
    const durationMs = (yield* Clock.currentTimeMillis) - startedAt
    const status = Exit.isSuccess(exit) ? exit.value.status : 500
    yield* Effect.logInfo(`${request.method} ${pathOf(request)} ${status} ${durationMs}ms`).pipe(
      Effect.annotateLogs({
        request_id: requestId,
        method: request.method,
        path: pathOf(request),
        status,
        duration_ms: durationMs
      })
    )
    return yield* exit
  })
