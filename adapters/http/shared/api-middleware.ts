import { type HttpApi, HttpApiBuilder, type HttpApp, HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"
import { makeFailureAnswers } from "./failure-answers.js"
import { makeIdempotentPosts } from "./idempotency-middleware.js"
import { makeRateLimiting } from "./rate-limit-middleware.js"
import { routesOf } from "./route-table.js"
import { makeSignUpCors } from "./sign-up-cors.js"

export interface ApiMiddlewareOptions {
  /** Whether a request path (or a path template) is one of the API's, counted against rate limits. */
  readonly isApiPath: (path: string) => boolean
  /** The URL the declared routes know a request by, where a form serves its routes under a second prefix. */
  readonly declaredUrlOf?: (url: string) => string
}

/**
 * What every request of a form passes through, outermost first: the CORS headers of sign-up forms
 * (so that a script on a form's allowed origin reads every answer, refusals included), the rate
 * limits of the API (which establish who is calling), the answers to every failure in the form's error body (bounding and
 * reading the body once), and `Idempotency-Key` on the API's POST routes around the endpoint itself.
 * Needs the form's `ErrorRenderer`.
 */
export const makeApiMiddlewareLive = (api: HttpApi.HttpApi.Any, options: ApiMiddlewareOptions) =>
  HttpApiBuilder.middleware(Effect.gen(function*() {
    const routes = routesOf(api)
    const cors = yield* makeSignUpCors
    const rateLimited = yield* makeRateLimiting(options.isApiPath)
    const answers = yield* makeFailureAnswers({ routes })
    const idempotent = yield* makeIdempotentPosts({
      // A file's endpoint streams its body and is not kept for a key (its body is not read twice).
      posts: routes.filter((route) => route.method === "POST" && route.body !== "file" && options.isApiPath(route.path))
    })
    const handle = (app: HttpApp.Default) => cors(rateLimited(answers(idempotent(app))))
    const { declaredUrlOf } = options
    if (declaredUrlOf === undefined) return handle
    return (app: HttpApp.Default) =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
        const url = declaredUrlOf(request.url)
        return url === request.url
          ? handle(app)
          : Effect.provideService(handle(app), HttpServerRequest.HttpServerRequest, request.modify({ url }))
      })
  }))
