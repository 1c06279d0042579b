import { type HttpBody, HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import {
  Idempotency,
  type IdempotencyKeyReused,
  type IdempotentOutcome,
  type IdempotentRequestInProgress,
  type StoredResponse
} from "@roster/application"
import type { InvalidInput } from "@roster/domain"
import { Cause, Data, Effect, Either, Exit, FiberRef, Option } from "effect"
import { createHash } from "node:crypto"
import { isApiError } from "./api-error.js"
import { IDEMPOTENCY_KEY_HEADER, REPLAYED_HEADER } from "./api-v1.js"
import { apiErrorOf } from "./application-errors.js"
import { RequestAuthentication } from "./authentication.js"
import { ErrorRenderer } from "./error-renderer.js"
import { pathOf } from "./request-path.js"
import { type KnownRoute, makeRouteTable } from "./route-table.js"

/**
 * The headers that belong to an answer and are kept with it. Request ids and rate-limit headers
 * belong to each delivery of it and are set afresh.
 */
const keptHeaders = ["content-type", "location", "link", "x-total-count"] as const

/** An answer whose body cannot be kept (a stream): it goes out once, and its key is freed. */
class UnkeptAnswer extends Data.TaggedError("UnkeptAnswer")<{ readonly response: HttpServerResponse.HttpServerResponse }> {}

const utf8 = new TextDecoder()

const bodyText = (body: HttpBody.HttpBody): Option.Option<string> => {
  switch (body._tag) {
    case "Empty":
      return Option.some("")
    case "Uint8Array":
      return Option.some(utf8.decode(body.body))
    case "Raw":
      return typeof body.body === "string" ? Option.some(body.body) : Option.none()
    default:
      return Option.none()
  }
}

const toStored = (response: HttpServerResponse.HttpServerResponse, body: string): StoredResponse => {
  const headers: Record<string, string> = {}
  for (const name of keptHeaders) {
    const value = response.headers[name]
    if (value !== undefined) headers[name] = value
  }
  return { status: response.status, headers, body }
}

/**
 * A kept answer as it goes out: the first time, and again (marked) for every repeat, so that each
 * repeat gets exactly what the first request got.
 */
const answerOf = ({ replayed, response: stored }: IdempotentOutcome): HttpServerResponse.HttpServerResponse => {
  const { "content-type": contentType, ...kept } = stored.headers
  const options = { status: stored.status, headers: replayed ? { ...kept, [REPLAYED_HEADER]: "true" } : kept }
  return contentType === undefined && stored.body === ""
    ? HttpServerResponse.empty(options)
    : HttpServerResponse.text(stored.body, { ...options, contentType })
}

/** Method, path with query, and a hash of the body: what makes two requests the same request. */
const fingerprintOf = (request: HttpServerRequest.HttpServerRequest, body: string): string =>
  createHash("sha256").update(`${request.method} ${request.url}\n`).update(body, "utf8").digest("base64url")

export interface IdempotentPostsOptions {
  /** The API's POST routes that take an `Idempotency-Key`. */
  readonly posts: ReadonlyArray<KnownRoute>
}

/**
 * `Idempotency-Key` on the API's POST routes, in every wire form: the endpoint's whole answer (status, the headers
 * that belong to it, body; errors included) is kept for the key, and a repeat of the same
 * request gets it again with `Idempotent-Replayed: true` instead of running twice. Wraps the
 * whole handling of the request, reading of the body included, so it runs inside the answers to
 * the framework's failures and after authentication, which it needs: keys belong to the
 * organization and credential. Which answers are kept, and when a key is refused, the
 * Idempotency use case decides.
 */
export const makeIdempotentPosts = (options: IdempotentPostsOptions) => Effect.gen(function*() {
  const idempotency = yield* Idempotency
  const authentication = yield* RequestAuthentication
  const { render } = yield* ErrorRenderer
  const posts = makeRouteTable(options.posts)

  return (app: HttpApp.Default) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const key = request.headers[IDEMPOTENCY_KEY_HEADER.toLowerCase()]
      const instance = pathOf(request)
      if (key === undefined || request.method !== "POST" || posts.methodsAt(instance).length === 0) return yield* app
      // Without a principal the endpoint refuses the request, and there is nothing to keep.
      const principal = yield* authentication.established
      if (Option.isNone(principal)) return yield* app
      // The body was read (and bounded) before; the request keeps its text.
      const body = yield* Effect.either(request.text)
      if (Either.isLeft(body)) return yield* app

      const refuse = (error: IdempotencyKeyReused | IdempotentRequestInProgress | InvalidInput) =>
        Effect.succeed(render(apiErrorOf(error), instance))

      const execute = Effect.gen(function*() {
        // The endpoint's own headers (set as the answer goes out) are collected apart from those
        // of the delivery, so that they are kept with the answer.
        const [exit, ownHeaders] = yield* Effect.locally(
          Effect.zip(Effect.exit(app), FiberRef.get(HttpApp.currentPreResponseHandlers)),
          HttpApp.currentPreResponseHandlers,
          Option.none()
        )
        let answer: HttpServerResponse.HttpServerResponse
        if (Exit.isSuccess(exit)) {
          answer = exit.value
        } else {
          const declared = Option.filter(Cause.failureOption(exit.cause), isApiError)
          if (Option.isNone(declared)) {
            // Not an answer of the endpoint (bad input, a fault): answered further out, and not kept.
            if (Option.isSome(ownHeaders)) yield* HttpApp.appendPreResponseHandler(ownHeaders.value)
            return yield* Effect.failCause(exit.cause)
          }
          answer = render(declared.value, instance)
        }
        const response = Option.isSome(ownHeaders) ? yield* Effect.orDie(ownHeaders.value(request, answer)) : answer
        const text = bodyText(response.body)
        if (Option.isNone(text)) return yield* new UnkeptAnswer({ response })
        return toStored(response, text.value)
      })

      return yield* idempotency.run(principal.value, key, fingerprintOf(request, body.right), execute).pipe(
        Effect.map(answerOf),
        // Only the refusals of the key are answered here; the endpoint's other failures (bad
        // input, faults) pass on to be answered further out.
        Effect.catchTags({
          UnkeptAnswer: (unkept) => Effect.succeed(unkept.response),
          IdempotencyKeyReused: refuse,
          IdempotentRequestInProgress: refuse,
          InvalidInput: refuse
        })
      )
    })
})
