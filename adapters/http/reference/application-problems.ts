import { HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import type {
  IdempotencyKeyReused,
  IdempotentRequestInProgress,
  MissingScope,
  NotAMember,
  NotPlatformAdmin,
  OrganizationNotChosen,
  Principal,
  SignInRateLimited,
  Unauthenticated
} from "@roster/application"
import type {
  EmailAlreadyExists,
  InvalidInput,
  InvalidStatusTransition,
  InvalidToken,
  MagicLinkAlreadyUsed,
  MagicLinkExpired,
  OrganizationSlugTaken,
  PlanLimitExceeded,
  ResourceNotFound,
  ResourceOfAnotherOrganization,
  TagAlreadyExists
} from "@roster/domain"
import { Effect, Option } from "effect"
import { CurrentPrincipal } from "../current-principal.js"
import { HttpSettings } from "../http-settings.js"
import { pathOf } from "../request-path.js"
import {
  type ConflictProblem,
  type ForbiddenProblem,
  type IdempotencyKeyReusedProblem,
  type IdempotentRequestInProgressProblem,
  type InvalidStatusTransitionProblem,
  type InvalidTokenProblem,
  type LimitExceededProblem,
  type MagicLinkAlreadyUsedProblem,
  type MagicLinkExpiredProblem,
  makeProblem,
  type NotFoundProblem,
  type Problem,
  type ProblemOccurrence,
  type RateLimitedProblem,
  type UnauthorizedProblem,
  type ValidationProblem
} from "./problems.js"

/** The one mapping of the use cases' errors to the reference form's problems. */

export type ApplicationError =
  | MissingScope
  | NotPlatformAdmin
  | ResourceNotFound
  | ResourceOfAnotherOrganization
  | EmailAlreadyExists
  | TagAlreadyExists
  | PlanLimitExceeded
  | InvalidInput
  | InvalidStatusTransition
  | OrganizationSlugTaken
  | Unauthenticated
  | OrganizationNotChosen
  | NotAMember
  | SignInRateLimited
  | MagicLinkExpired
  | MagicLinkAlreadyUsed
  | InvalidToken
  | IdempotencyKeyReused
  | IdempotentRequestInProgress

/** The header a session names its organization with. */
export const ORGANIZATION_HEADER = "X-Organization-Id"

/** The problem each error becomes, so that an endpoint declares exactly what it can answer. */
export type ProblemOf<E> = E extends MissingScope | NotPlatformAdmin | ResourceOfAnotherOrganization | NotAMember
  ? ForbiddenProblem
  : E extends ResourceNotFound ? NotFoundProblem
  : E extends EmailAlreadyExists | TagAlreadyExists | OrganizationSlugTaken ? ConflictProblem
  : E extends InvalidStatusTransition ? InvalidStatusTransitionProblem
  : E extends PlanLimitExceeded ? LimitExceededProblem
  : E extends InvalidInput | OrganizationNotChosen ? ValidationProblem
  : E extends Unauthenticated ? UnauthorizedProblem
  : E extends SignInRateLimited ? RateLimitedProblem
  : E extends MagicLinkExpired ? MagicLinkExpiredProblem
  : E extends MagicLinkAlreadyUsed ? MagicLinkAlreadyUsedProblem
  : E extends InvalidToken ? InvalidTokenProblem
  : E extends IdempotencyKeyReused ? IdempotencyKeyReusedProblem
  : E extends IdempotentRequestInProgress ? IdempotentRequestInProgressProblem
  : never

/** Who lacks a scope, in the words of their credential. */
const lacksScope = (scope: string, credential: Principal["credential"] | undefined): string =>
  credential?.kind === "session"
    ? `the ${credential.role} role does not allow this; it needs the scope ${scope}, which only owners hold`
    : `this API key lacks the scope ${scope}`

export const problemOf = (
  error: ApplicationError,
  at: Omit<ProblemOccurrence, "detail">,
  credential?: Principal["credential"]
): Problem => {
  switch (error._tag) {
    case "MissingScope":
      return makeProblem("forbidden", { ...at, detail: lacksScope(error.scope, credential) })
    case "NotPlatformAdmin":
      return makeProblem("forbidden", {
        ...at,
        detail: "administration needs a platform-admin organization, acting with the scope * " +
          "(an API key with *, or an owner's session)"
      })
    case "ResourceOfAnotherOrganization":
      // Nothing of the resource is told beyond the id the client sent.
      return makeProblem("forbidden", { ...at, detail: "the resource belongs to another organization" })
    case "ResourceNotFound":
      return makeProblem("not_found", { ...at, detail: error.message })
    case "EmailAlreadyExists":
      return makeProblem("conflict", { ...at, detail: error.message })
    case "TagAlreadyExists":
      return makeProblem("conflict", { ...at, detail: error.message })
    case "InvalidStatusTransition":
      return makeProblem("invalid_status_transition", {
        ...at,
        detail: `status: a subscriber cannot move from ${error.from} to ${error.to} through the API`
      })
    case "PlanLimitExceeded":
      return makeProblem("limit_exceeded", { ...at, detail: error.message })
    case "InvalidInput":
      return makeProblem("validation_error", { ...at, detail: error.message }, [
        { field: error.field, message: error.problem }
      ])
    case "OrganizationSlugTaken":
      return makeProblem("conflict", { ...at, detail: error.message })
    case "Unauthenticated":
      return makeProblem("unauthorized", { ...at, detail: error.reason })
    case "OrganizationNotChosen": {
      const message = "is required with a session cookie: the id of an organization you are a member of"
      return makeProblem("validation_error", { ...at, detail: `${ORGANIZATION_HEADER}: ${message}` }, [
        { field: ORGANIZATION_HEADER, message }
      ])
    }
    case "NotAMember":
      // The same answer whether the organization exists or not.
      return makeProblem("forbidden", {
        ...at,
        detail: `you are not a member of the organization named in ${ORGANIZATION_HEADER}`
      })
    case "SignInRateLimited":
      return makeProblem("rate_limited", {
        ...at,
        detail: `too many sign-in links were asked for; try again in ${error.retryAfterSeconds} seconds`
      })
    case "MagicLinkExpired":
      return makeProblem("magic_link_expired", { ...at, detail: error.message })
    case "MagicLinkAlreadyUsed":
      return makeProblem("magic_link_already_used", { ...at, detail: error.message })
    case "InvalidToken":
      return makeProblem("invalid_token", { ...at, detail: error.reason })
    case "IdempotencyKeyReused":
      return makeProblem("idempotency_key_reused", { ...at, detail: error.message })
    case "IdempotentRequestInProgress":
      return makeProblem("idempotency_request_in_progress", { ...at, detail: error.message })
  }
}

/** Headers that go with a problem: when to try again after a rate limit. */
const headersOf = (error: ApplicationError): Record<string, string> =>
  error._tag === "SignInRateLimited" ? { "Retry-After": String(error.retryAfterSeconds) } : {}

/** Turns a use case's failure into the problem of the current request. */
export const answerWithProblem = <A, E extends ApplicationError, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, ProblemOf<E>, R | HttpSettings | HttpServerRequest.HttpServerRequest> =>
  Effect.catchAll(effect, (error) =>
    Effect.gen(function*() {
      const { errorsBaseUrl } = yield* HttpSettings
      const request = yield* HttpServerRequest.HttpServerRequest
      const principal = yield* Effect.serviceOption(CurrentPrincipal)
      const headers = headersOf(error)
      if (Object.keys(headers).length > 0) {
        yield* HttpApp.appendPreResponseHandler((_request, response) =>
          Effect.succeed(HttpServerResponse.setHeaders(response, headers))
        )
      }
      const credential = Option.getOrUndefined(Option.map(principal, (p) => p.credential))
      return yield* Effect.fail(problemOf(error, { errorsBaseUrl, instance: pathOf(request) }, credential) as ProblemOf<E>)
    }))
