import { HttpApiBuilder, type HttpApp } from "@effect/platform"
import { Effect } from "effect"
import { ReferenceApi } from "./api.js"
import { makeIdempotentPosts } from "./idempotency-middleware.js"
import { makeProblemAnswers } from "./problem-middleware.js"
import { makeRateLimiting } from "./rate-limit-middleware.js"

/**
 * What every request of the reference form passes through, outermost first: the rate limits of
 * `/api/v1` (which establish who is calling), the problems answered for the framework's failures
 * (bounding and reading the body once), and `Idempotency-Key` on the API's POST routes around
 * the endpoint itself.
 */
export const ApiMiddlewareLive = HttpApiBuilder.middleware(
  ReferenceApi,
  Effect.gen(function*() {
    const rateLimited = yield* makeRateLimiting
    const problems = yield* makeProblemAnswers
    const idempotent = yield* makeIdempotentPosts
    return (app: HttpApp.Default) => rateLimited(problems(idempotent(app)))
  })
)
