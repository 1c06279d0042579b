import { HttpApiBuilder, type HttpApp } from "@effect/platform"
import { Effect } from "effect"
import { routesOf } from "../route-table.js"
import { ReferenceApi } from "./api.js"
import { isApiPath } from "./api-v1.js"
import { makeIdempotentPosts } from "../idempotency-middleware.js"
import { makeProblemAnswers } from "../problem-middleware.js"
import { makeRateLimiting } from "../rate-limit-middleware.js"

/**
 * What every request of the reference form passes through, outermost first: the rate limits of
 * `/api/v1` (which establish who is calling), the problems answered for the framework's failures
 * (bounding and reading the body once), and `Idempotency-Key` on the API's POST routes around
 * the endpoint itself.
 */
export const ApiMiddlewareLive = HttpApiBuilder.middleware(
  ReferenceApi,
  Effect.gen(function*() {
    const routes = routesOf(ReferenceApi)
    const rateLimited = yield* makeRateLimiting(isApiPath)
    const problems = yield* makeProblemAnswers({ routes })
    const idempotent = yield* makeIdempotentPosts({
      posts: routes.filter((route) => route.method === "POST" && isApiPath(route.path))
    })
    return (app: HttpApp.Default) => rateLimited(problems(idempotent(app)))
  })
)
