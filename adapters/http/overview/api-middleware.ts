import { HttpApiBuilder, type HttpApp, type HttpBody, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { makeIdempotentPosts } from "../idempotency-middleware.js"
import { makeProblemAnswers } from "../problem-middleware.js"
import { isProblem, type Problem } from "../reference/problems.js"
import { makeRateLimiting } from "../rate-limit-middleware.js"
import { routesOf } from "../route-table.js"
import { OverviewApi } from "./api.js"
import { declaredErrorAnswer, errorOfProblem, errorResponse, isDeclaredFailure } from "./errors.js"
import { declaredUrlOf, isOverviewApiPath } from "./paths.js"

const utf8 = new TextDecoder()

const textOf = (body: HttpBody.HttpBody): string | undefined =>
  body._tag === "Uint8Array"
    ? utf8.decode(body.body)
    : body._tag === "Raw" && typeof body.body === "string"
    ? body.body
    : undefined

const isProblemAnswer = (response: HttpServerResponse.HttpServerResponse) =>
  (response.headers["content-type"] ?? "").startsWith("application/problem+json")

/**
 * The problems answered by the middleware the two forms share (rate limits, bad input, unknown
 * routes, faults, idempotency refusals), in this form's error body with the same status and headers.
 */
const inErrorBody = (response: HttpServerResponse.HttpServerResponse): HttpServerResponse.HttpServerResponse => {
  if (!isProblemAnswer(response)) return response
  const text = textOf(response.body)
  if (text === undefined) return response
  const { "content-type": _contentType, "content-length": _contentLength, ...headers } = response.headers
  const error = errorOfProblem(JSON.parse(text) as Problem)
  return errorResponse(error, headers).pipe(
    (answer) => HttpServerResponse.setStatus(answer, response.status),
    (answer) => HttpServerResponse.mergeCookies(answer, response.cookies)
  )
}

/**
 * What every request of the overview form passes through, outermost first: `/api/v1` routed as
 * `/v1`, every problem answered in the `error` envelope, then the rate limits, the answers to the
 * framework's failures and `Idempotency-Key` on POST that the reference form has too.
 */
export const ApiMiddlewareLive = HttpApiBuilder.middleware(
  OverviewApi,
  Effect.gen(function*() {
    const routes = routesOf(OverviewApi)
    const rateLimited = yield* makeRateLimiting(isOverviewApiPath)
    const problems = yield* makeProblemAnswers({ routes, isDeclared: isDeclaredFailure })
    const idempotent = yield* makeIdempotentPosts({
      posts: routes.filter((route) => route.method === "POST" && isOverviewApiPath(route.path)),
      declaredAnswer: declaredErrorAnswer
    })
    return (app: HttpApp.Default) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const url = declaredUrlOf(request.url)
        const routed = url === request.url ? request : request.modify({ url })
        return yield* rateLimited(problems(idempotent(app))).pipe(
          Effect.map(inErrorBody),
          Effect.catchIf(isProblem, (problem) => Effect.succeed(errorResponse(errorOfProblem(problem)))),
          Effect.provideService(HttpServerRequest.HttpServerRequest, routed)
        )
      })
  })
)
