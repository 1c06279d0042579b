import { HttpServerRequest } from "@effect/platform"
import type { MissingScope } from "@roster/application"
import type {
  EmailAlreadyExists,
  InvalidInput,
  InvalidStatusTransition,
  PlanLimitExceeded,
  ResourceNotFound,
  ResourceOfAnotherOrganization,
  TagAlreadyExists
} from "@roster/domain"
import { Effect } from "effect"
import { HttpSettings } from "../http-settings.js"
import { pathOf } from "../request-path.js"
import {
  type ConflictProblem,
  type ForbiddenProblem,
  type InvalidStatusTransitionProblem,
  type LimitExceededProblem,
  makeProblem,
  type NotFoundProblem,
  type Problem,
  type ProblemOccurrence,
  type ValidationProblem
} from "./problems.js"

/** The one mapping of the use cases' errors to the reference form's problems. */

export type ApplicationError =
  | MissingScope
  | ResourceNotFound
  | ResourceOfAnotherOrganization
  | EmailAlreadyExists
  | TagAlreadyExists
  | PlanLimitExceeded
  | InvalidInput
  | InvalidStatusTransition

/** The problem each error becomes, so that an endpoint declares exactly what it can answer. */
export type ProblemOf<E> = E extends MissingScope | ResourceOfAnotherOrganization ? ForbiddenProblem
  : E extends ResourceNotFound ? NotFoundProblem
  : E extends EmailAlreadyExists | TagAlreadyExists ? ConflictProblem
  : E extends InvalidStatusTransition ? InvalidStatusTransitionProblem
  : E extends PlanLimitExceeded ? LimitExceededProblem
  : E extends InvalidInput ? ValidationProblem
  : never

/** `api_key` -> `api key` */
const spoken = (resource: string) => resource.replace("_", " ")

export const problemOf = (error: ApplicationError, at: Omit<ProblemOccurrence, "detail">): Problem => {
  switch (error._tag) {
    case "MissingScope":
      return makeProblem("forbidden", { ...at, detail: `this API key lacks the scope ${error.scope}` })
    case "ResourceOfAnotherOrganization":
      // Nothing of the resource is told beyond the id the client sent.
      return makeProblem("forbidden", { ...at, detail: "the resource belongs to another organization" })
    case "ResourceNotFound":
      return makeProblem("not_found", { ...at, detail: `no ${spoken(error.resource)} ${error.id}` })
    case "EmailAlreadyExists":
      return makeProblem("conflict", { ...at, detail: `a subscriber with email ${error.email} already exists` })
    case "TagAlreadyExists":
      return makeProblem("conflict", { ...at, detail: `a tag with ${error.field} '${error.value}' already exists` })
    case "InvalidStatusTransition":
      return makeProblem("invalid_status_transition", {
        ...at,
        detail: `status: a subscriber cannot move from ${error.from} to ${error.to} through the API`
      })
    case "PlanLimitExceeded":
      return makeProblem("limit_exceeded", { ...at, detail: error.message })
    case "InvalidInput":
      return makeProblem("validation_error", { ...at, detail: `${error.field}: ${error.problem}` }, [
        { field: error.field, message: error.problem }
      ])
  }
}

/** Turns a use case's failure into the problem of the current request. */
export const answerWithProblem = <A, E extends ApplicationError, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, ProblemOf<E>, R | HttpSettings | HttpServerRequest.HttpServerRequest> =>
  Effect.catchAll(effect, (error) =>
    Effect.gen(function*() {
      const { errorsBaseUrl } = yield* HttpSettings
      const request = yield* HttpServerRequest.HttpServerRequest
      return yield* Effect.fail(problemOf(error, { errorsBaseUrl, instance: pathOf(request) }) as ProblemOf<E>)
    }))
