import type { Principal } from "@roster/application"
import { Effect } from "effect"
import type { ApiError } from "./api-error.js"
import { apiErrorOf, type ApplicationError, type CodeOf } from "./application-errors.js"
import { CurrentPrincipal } from "./current-principal.js"

/**
 * Runs a use case for the current principal and answers its result as `render` shows it; the use
 * case's failures become the errors the service answers (in whatever form is running). A handler
 * is then one line: `({ path }) => respond((caller) => subscribers.get(caller, path.id), toSubscriber)`.
 */
export function respond<A, E extends ApplicationError, R>(
  run: (principal: Principal) => Effect.Effect<A, E, R>
): Effect.Effect<A, ApiError<CodeOf<E>>, R | CurrentPrincipal>
export function respond<A, B, E extends ApplicationError, R>(
  run: (principal: Principal) => Effect.Effect<A, E, R>,
  render: (a: A) => B
): Effect.Effect<B, ApiError<CodeOf<E>>, R | CurrentPrincipal>
export function respond<A, E extends ApplicationError, R>(
  run: (principal: Principal) => Effect.Effect<A, E, R>,
  render?: (a: A) => unknown
): Effect.Effect<unknown, ApiError<CodeOf<E>>, R | CurrentPrincipal> {
  return Effect.flatMap(CurrentPrincipal, (principal) => {
    const answered = Effect.mapError(run(principal), (error) => apiErrorOf(error, principal.credential))
    return render === undefined ? answered : Effect.map(answered, render)
  })
}

/** A use case's failures as the errors the service answers, for routes without a principal. */
export const answering = <A, E extends ApplicationError, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, ApiError<CodeOf<E>>, R> => Effect.mapError(effect, (error) => apiErrorOf(error))
