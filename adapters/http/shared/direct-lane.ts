import { HttpApiError, HttpServerError, HttpServerResponse } from "@effect/platform"
import { ApiKeys, type Principal, RateLimits } from "@roster/application"
import { Cause, Context, Effect, Either, FiberRef, Option, type ParseResult, Runtime } from "effect"
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import { isApiError } from "./api-error.js"
import { compressedAnswer } from "./compression.js"
import { ErrorRenderer } from "./error-renderer.js"
import { decodeErrorAnswer, defectAnswer, invalidAnswer, MAX_BODY_BYTES, MAX_BODY_DEPTH } from "./failure-answers.js"
import { jsonNestingDepth } from "./json-depth.js"
import { makeWithinOrganizationLimit } from "./rate-limit-middleware.js"
import { bodyTextProblem, readIncomingText } from "./request-body.js"
import { CurrentRequestId, logRequestLine, RequestLines, type RequestObserver, requestIdOf, requestLineOf, tagAnswer } from "./request-log.js"

/**
 * The direct lane: the busiest requests (an API key reading or creating one subscriber) served
 * straight from the Node server, with one fiber per request and nothing built per request, beside
 * the HttpApi that serves everything else. It answers exactly what the HttpApi answers: the same
 * use cases, checks, error bodies, `X-Request-Id`, compression and request log line.
 *
 * A request is counted against its organization's rate limit as the HttpApi's middleware counts
 * it, through the same function (rate-limit-middleware.ts): the same key and limiter, the same
 * `X-RateLimit-*` headers on every answer, the same 429 past the limit (its body left unread).
 *
 * A request is taken only when its route is one of the lane's and it carries an API key; it is
 * handed on to the HttpApi, untouched (its body unread and nothing counted), when the key does not
 * establish a principal. Requests with an `Idempotency-Key`, a query string, an unusual body or an
 * invalid path parameter are not taken at all.
 */

/** What a route of the lane answers for the principal of the request. */
export type DirectAnswer = (principal: Principal) => Effect.Effect<HttpServerResponse.HttpServerResponse, unknown>

/** A route of the lane: its answer when it takes the request (whose path has no query), else `undefined`. */
export type DirectRoute = (request: IncomingMessage, path: string) => DirectAnswer | undefined

/**
 * Serves a request and answers `true`, or answers `false` when the request is not the lane's; it
 * may hand a request it took on to the HttpApi later with `regular`.
 */
export type DirectLane = (request: IncomingMessage, response: ServerResponse, regular: () => void) => boolean

const API_KEY_HEADER = "x-api-key"

/** A request body the lane reads itself: JSON of a declared length within the limit, sent at once. */
export const hasPlainJsonBody = (request: IncomingMessage): boolean => {
  const { headers } = request
  if (headers["transfer-encoding"] !== undefined || headers["idempotency-key"] !== undefined) return false
  const contentType = headers["content-type"]
  if (contentType !== "application/json" && contentType !== "application/json; charset=utf-8") return false
  const length = Number(headers["content-length"])
  return Number.isInteger(length) && length > 0 && length <= MAX_BODY_BYTES
}

/** A failure of the body itself: answered as the HttpApi's middleware answers it. */
class BodyRefused {
  readonly _tag = "BodyRefused"
  constructor(readonly field: string, readonly message: string) {}
}

/**
 * The JSON body of a request, checked as the HttpApi's middleware checks it (readable, nested at
 * most 32 deep, valid JSON), then decoded with `decode` as the endpoint decodes its payload.
 */
export const readJsonBody = <A>(
  request: IncomingMessage,
  decode: (u: unknown) => Either.Either<A, ParseResult.ParseError>
): Effect.Effect<A, BodyRefused | HttpApiError.HttpApiDecodeError> =>
  Effect.flatMap(
    readIncomingText(request, MAX_BODY_BYTES),
    (read): Effect.Effect<A, BodyRefused | HttpApiError.HttpApiDecodeError> => {
      // The lane takes only bodies whose declared length is within the limit (`hasPlainJsonBody`).
      if (Either.isLeft(read)) {
        return Effect.fail(new BodyRefused("body", bodyTextProblem(read.left === "too_large" ? "unreadable" : read.left)))
      }
      const text = read.right
      if (jsonNestingDepth(text) > MAX_BODY_DEPTH) {
        return Effect.fail(new BodyRefused("body", `must not nest arrays and objects more than ${MAX_BODY_DEPTH} levels deep`))
      }
      let json: unknown
      try {
        json = JSON.parse(text)
      } catch {
        return Effect.fail(new BodyRefused("body", "is not valid JSON"))
      }
      const decoded = decode(json)
      return Either.isRight(decoded)
        ? Effect.succeed(decoded.right)
        : Effect.flatMap(HttpApiError.HttpApiDecodeError.fromParseError(decoded.left), Effect.fail)
    }
  )

/** Writes an answer to the Node response, as the platform's server writes it. */
const write = (response: ServerResponse, answer: HttpServerResponse.HttpServerResponse) => {
  if (response.writableEnded) return
  const body = answer.body
  response.writeHead(answer.status, answer.headers)
  if (body._tag === "Uint8Array") response.end(body.body)
  else if (body._tag === "Raw" && typeof body.body === "string") response.end(body.body)
  else response.end()
}

export interface DirectLaneOptions {
  readonly routes: ReadonlyArray<DirectRoute>
  /** Told of every request the lane answers (the metrics, when they are served). */
  readonly observe?: RequestObserver | undefined
}

/** The lane over `routes`; needs the API keys, the rate limits and the form's error renderer. */
export const makeDirectLane = (options: DirectLaneOptions) =>
  Effect.gen(function*() {
    const apiKeys = yield* ApiKeys
    const { render } = yield* ErrorRenderer
    const withinOrganizationLimit = makeWithinOrganizationLimit(yield* RateLimits, render)
    const requestLines = yield* RequestLines
    // The lane's fibers carry no services in their context (the use cases hold theirs): every
    // scope or service a fiber adds copies its context, which would otherwise be the whole app's.
    const { fiberRefs, runtimeFlags } = yield* Effect.runtime<never>()
    const runFork = Runtime.runFork(Runtime.make({ context: Context.empty(), fiberRefs, runtimeFlags }))
    const { observe, routes } = options

    /** The answer to whatever `answer` failed with, in the form's error body. */
    const answerCause = (instance: string) => (cause: Cause.Cause<unknown>) => {
      const failure = Cause.failureOption(cause)
      if (Option.isSome(failure)) {
        const error = failure.value
        if (isApiError(error)) return Effect.succeed(render(error, instance))
        if (error instanceof HttpApiError.HttpApiDecodeError) return Effect.succeed(decodeErrorAnswer(render, instance, error))
        if (error instanceof BodyRefused) {
          return Effect.succeed(invalidAnswer(render, instance, [{ field: error.field, message: error.message }]))
        }
      }
      return defectAnswer(render, instance, cause)
    }

    const lane: DirectLane = (request, response, regular) => {
      const path = request.url!
      if (path.includes("?")) return false
      const key = request.headers[API_KEY_HEADER]
      if (typeof key !== "string") return false
      const presented = key.trim()
      if (presented === "") return false
      let answer: DirectAnswer | undefined
      for (let i = 0; i < routes.length && answer === undefined; i++) answer = routes[i]!(request, path)
      if (answer === undefined) return false
      const taken = answer

      const startedAt = Date.now()
      const requestId = requestIdOf(request.headers["x-request-id"] as string | undefined)
      const served = Effect.flatMap(Effect.either(apiKeys.authenticate(presented)), (outcome) => {
        // The HttpApi answers a refused key (and counts it against the client address).
        if (Either.isLeft(outcome)) return Effect.succeed(false)
        const principal = outcome.right
        return Effect.zipRight(
          FiberRef.set(CurrentRequestId, requestId),
          withinOrganizationLimit(principal, Effect.catchAllCause(taken(principal), answerCause(path)), path).pipe(
            Effect.map((answered) => tagAnswer(answered, requestId)),
            Effect.flatMap((answered) => compressedAnswer(request.headers["accept-encoding"], answered)),
            Effect.flatMap((answered) => {
              write(response, answered)
              const durationMs = Date.now() - startedAt
              observe?.(request.method!, path, answered.status, durationMs)
              return Effect.as(
                logRequestLine(requestLines, requestId, () =>
                  requestLineOf({
                    method: request.method!,
                    path,
                    status: answered.status,
                    durationMs,
                    clientAddress: request.socket.remoteAddress ?? null,
                    userAgent: request.headers["user-agent"] ?? null,
                    principal
                  })),
                true
              )
            })
          )
        )
      })
      const fiber = runFork(served)
      fiber.addObserver((exit) => {
        if (exit._tag === "Success" && !exit.value) regular()
      })
      response.once("close", () => {
        if (!response.writableEnded) fiber.unsafeInterruptAsFork(HttpServerError.clientAbortFiberId)
      })
      return true
    }
    return lane
  })

/**
 * Gives a Node server's requests to `lane` first; those it does not take, or hands on, go to the
 * server's own request listeners (the HttpApi).
 */
export const withDirectLane = (server: Server, lane: DirectLane): Server => {
  const emit = server.emit as (this: Server, event: string | symbol, ...args: Array<unknown>) => boolean
  server.emit = function(this: Server, event: string | symbol, ...args: Array<unknown>): boolean {
    if (event === "request") {
      const [request, response] = args as [IncomingMessage, ServerResponse]
      if (lane(request, response, () => emit.call(this, event, request, response))) return true
    }
    return emit.call(this, event, ...args)
  } as Server["emit"]
  return server
}
