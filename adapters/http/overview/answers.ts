import type { HttpServerRequest } from "@effect/platform"
import type { NumberedPage } from "@roster/domain"
import { Effect } from "effect"
import type { HttpSettings } from "../http-settings.js"
import { answerWithProblem, type ApplicationError } from "../reference/application-problems.js"
import { errorOfProblem, type OverviewError } from "./errors.js"

/**
 * Turns a use case's failure into this form's error for the current request: the same mapping
 * of the use cases' errors as the reference form's, in the `error` envelope.
 */
export const answerWithError = <A, E extends ApplicationError, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, OverviewError, R | HttpSettings | HttpServerRequest.HttpServerRequest> =>
  Effect.mapError(answerWithProblem(effect), (problem) => errorOfProblem(problem as never))

/** A numbered page in the list envelope. */
export const listOf = <A, B>(page: NumberedPage<A>, f: (a: A) => B) => ({
  data: page.items.map(f),
  meta: { total: page.total, page: page.page, per_page: page.perPage, total_pages: page.totalPages }
})
