import { HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { type Principal, type RateDecision, RateLimits } from "@roster/application"
import { isUuid } from "@roster/domain"
import { Clock, Effect, Exit, Option } from "effect"
import { apiError } from "./api-error.js"
import { RATE_LIMIT_HEADERS } from "./api-v1.js"
import { RequestAuthentication } from "./authentication.js"
import { ErrorRenderer } from "./error-renderer.js"
import { pathOf } from "./request-path.js"
import { signUpFormIdOf } from "./sign-up-cors.js"

const headersOf = (decision: RateDecision): Record<string, string> => ({
  [RATE_LIMIT_HEADERS.limit]: String(decision.limit),
  [RATE_LIMIT_HEADERS.remaining]: String(decision.remaining),
  [RATE_LIMIT_HEADERS.reset]: String(Math.ceil(decision.resetAt.getTime() / 1000))
})

/** Whole seconds until the window ends, at least one. */
const secondsUntil = (resetAt: Date, nowMs: number): number => Math.max(1, Math.ceil((resetAt.getTime() - nowMs) / 1000))

/**
 * `answer` with the budget of `decision` told in its `X-RateLimit-*` headers; past the limit,
 * `answer` is not run and the request answers 429 `rate_limited` with `Retry-After` instead, its
 * detail naming `whose` limit it is. `answer` must answer its own failures (failure-answers.ts),
 * so that errors carry the headers too. The API's middleware and the direct lane both answer
 * through it.
 */
export const withinRateLimit = <E, R>(
  render: ErrorRenderer["Type"]["render"],
  answer: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
  instance: string,
  decision: RateDecision,
  whose: string
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> => {
  const headers = headersOf(decision)
  if (decision.allowed) return Effect.map(answer, (response) => HttpServerResponse.setHeaders(response, headers))
  return Effect.map(Clock.currentTimeMillis, (nowMs) => {
    const retryAfter = secondsUntil(decision.resetAt, nowMs)
    return HttpServerResponse.setHeaders(
      render(
        apiError("rate_limited", `${whose} limit of ${decision.limit} requests is reached; try again in ${retryAfter} seconds`, {
          headers: { "Retry-After": String(retryAfter) }
        }),
        instance
      ),
      headers
    )
  })
}

/**
 * Counts a request of `principal` against its organization's rate and answers as
 * {@link withinRateLimit}; an organization without a limit is not counted and has no budget to
 * tell: `answer` is answered as it is. The API's middleware and the direct lane both count through it.
 */
export const makeWithinOrganizationLimit = (
  rateLimits: RateLimits,
  render: ErrorRenderer["Type"]["render"]
) =>
<E, R>(
  principal: Principal,
  answer: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
  instance: string
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> =>
  Effect.flatMap(
    rateLimits.forOrganization(principal),
    (decision) => decision === undefined ? answer : withinRateLimit(render, answer, instance, decision, "the organization's")
  )

/**
 * The token of a preference-center request: in the query, or the last segment of
 * `/preferences/:token`; none is counted as the empty token.
 */
const preferenceTokenOf = (request: HttpServerRequest.HttpServerRequest, path: string): string => {
  const inPath = /\/preferences\/([^/]+)$/.exec(path)?.[1]
  if (inPath !== undefined) return inPath
  const query = request.url.indexOf("?")
  return query < 0 ? "" : new URLSearchParams(request.url.slice(query + 1)).get("token") ?? ""
}

/** The preference center's paths, in every form: its page and API, and one-click unsubscribe. */
export const isPreferencePath = (path: string): boolean =>
  path === "/preference-center" || path.startsWith("/preference-center/") || path === "/unsubscribe" ||
  /^\/(api\/)?v1\/preferences\/[^/]+$/.test(path)

/** Whether a path is one of the hosted sign-up pages (`/f/{form_id}`, `/f/confirm`), open to anyone. */
export const isSignUpPagePath = (path: string): boolean => path.startsWith("/f/")

/**
 * Counts every `/api/v1` request against its organization's rate (once authenticated) or, without a
 * valid credential, against the client address; requests to the preference center are counted per
 * link and per client address, and those to the sign-up pages per client address, a sign-up posted
 * to a form also against the form's rate. Every answer tells the budget in the
 * `X-RateLimit-*` headers, errors included; a request past the limit is not carried out and answers
 * 429 `rate_limited` with `Retry-After`. The request's authentication is established here, once.
 * `isApiPath` tells the paths of the form's API (the others are not counted).
 */
export const makeRateLimiting = (isApiPath: (path: string) => boolean) => Effect.gen(function*() {
  const rateLimits = yield* RateLimits
  const authentication = yield* RequestAuthentication
  const { render } = yield* ErrorRenderer

  const withinOrganizationLimit = makeWithinOrganizationLimit(rateLimits, render)

  return (app: HttpApp.Default) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const instance = pathOf(request)
      const clientAddress = Option.getOrElse(request.remoteAddress, () => "unknown")
      if (isPreferencePath(instance)) {
        const decision = yield* rateLimits.forPreferences(preferenceTokenOf(request, instance), clientAddress)
        return yield* withinRateLimit(render, app, instance, decision, "this link's or this client address's")
      }
      if (isSignUpPagePath(instance)) {
        const formId = request.method === "POST" ? signUpFormIdOf(instance) : undefined
        // The form's rate is keyed by its id, so a path that holds none counts against no form.
        const { decision, limitedBy } = yield* rateLimits.forSignUp(
          clientAddress,
          formId !== undefined && isUuid(formId) ? formId.toLowerCase() : undefined
        )
        return yield* withinRateLimit(render, app, instance, decision, limitedBy === "form" ? "this form's sign-up" : "this client address's")
      }
      if (!isApiPath(instance)) return yield* app
      return yield* authentication.establish((outcome) =>
        Exit.isSuccess(outcome)
          ? withinOrganizationLimit(outcome.value, app, instance)
          : Effect.flatMap(
            rateLimits.forAnonymous(clientAddress),
            (decision) => withinRateLimit(render, app, instance, decision, "this client address's")
          )
      )
    })
})
