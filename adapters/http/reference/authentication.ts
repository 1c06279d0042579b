import {
  HttpApiMiddleware,
  HttpApiSecurity,
  HttpApp,
  HttpServerRequest,
  HttpServerResponse,
  OpenApi
} from "@effect/platform"
import { ApiKeys, Auth, type Principal } from "@roster/application"
import { Context, Effect, Exit, Layer, Option, Redacted, Schema } from "effect"
import { CurrentPrincipal } from "../current-principal.js"
import { CurrentSessionUser } from "../current-session-user.js"
import { HttpSettings } from "../http-settings.js"
import { pathOf } from "../request-path.js"
import { crossSiteReason, SESSION_COOKIE, sessionCookieOf } from "../session-cookie.js"
import { ORGANIZATION_HEADER, problemOf } from "./application-problems.js"
import { ForbiddenProblem, makeProblem, UnauthorizedProblem, ValidationProblem } from "./problems.js"

const API_KEY_HEADER = "X-API-Key"

export const apiKeyScheme = HttpApiSecurity.apiKey({ in: "header", key: API_KEY_HEADER }).pipe(
  HttpApiSecurity.annotate(
    OpenApi.Description,
    "An API key of the organization (`svc_live_...` or `svc_test_...`), sent in the `X-API-Key` header. " +
      "The key's organization is the one acted for; its scopes decide what it may do. When a request carries " +
      "both a key and a session cookie, the key decides alone."
  )
)

export const sessionScheme = HttpApiSecurity.apiKey({ in: "cookie", key: SESSION_COOKIE }).pipe(
  HttpApiSecurity.annotate(
    OpenApi.Description,
    "The dashboard session, set by `GET /auth/verify` and ended by `POST /auth/logout`. On `/api/v1` a session " +
      `names the organization it acts for in the \`${ORGANIZATION_HEADER}\` header (400 without it, 403 when the user is ` +
      "not a member); owners hold every scope (`*`), members those of subscribers and tags. Requests that change " +
      "something must come from the service's own site (`Sec-Fetch-Site` and `Origin` are checked)."
  )
)

/**
 * Every `/api/v1` endpoint needs an API key or a session cookie; it provides the
 * {@link CurrentPrincipal}. A request without a session gets the API key problems (401), one
 * with a session may also get 400 (no organization named) or 403 (not a member, another site).
 */
export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("roster/reference/Authentication", {
  failure: Schema.Union(UnauthorizedProblem, ForbiddenProblem, ValidationProblem),
  provides: CurrentPrincipal,
  security: { apiKey: apiKeyScheme, session: sessionScheme }
}) {}

/** The `/auth/*` endpoints of a signed-in user need a session cookie, and no organization. */
export class SessionAuthentication
  extends HttpApiMiddleware.Tag<SessionAuthentication>()("roster/reference/SessionAuthentication", {
    failure: Schema.Union(UnauthorizedProblem, ForbiddenProblem),
    provides: CurrentSessionUser,
    security: { session: sessionScheme }
  })
{}

/** A 401 names the scheme it wants (RFC 9110 asks every 401 for a challenge). */
const challengedWith = (scheme: string) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.tapError(effect, (problem) =>
    problem instanceof UnauthorizedProblem
      ? HttpApp.appendPreResponseHandler((_request, response) =>
        Effect.succeed(HttpServerResponse.setHeader(response, "WWW-Authenticate", scheme))
      )
      : Effect.void)
const apiKeyChallenge = `ApiKey header="${API_KEY_HEADER}"`
const sessionChallenge = `Cookie cookie-name="${SESSION_COOKIE}"`

const presentedApiKey = (request: HttpServerRequest.HttpServerRequest): string | undefined => {
  const value = request.headers[API_KEY_HEADER.toLowerCase()]
  return value === undefined || value.trim() === "" ? undefined : value.trim()
}

const makeRefusals = Effect.gen(function*() {
  const { errorsBaseUrl, publicBaseUrl } = yield* HttpSettings
  const at = (request: HttpServerRequest.HttpServerRequest) => ({ errorsBaseUrl, instance: pathOf(request) })
  const unauthorized = (detail: string) =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      Effect.fail(makeProblem("unauthorized", { ...at(request), detail })))
  /** Refuses a request with a session cookie that changes something from another site. */
  const sameSiteOnly = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const reason = crossSiteReason(request, publicBaseUrl)
    return reason === undefined ? Effect.void : Effect.fail(makeProblem("forbidden", { ...at(request), detail: reason }))
  })
  return { at, unauthorized, sameSiteOnly } as const
})

/** What authenticating a request can answer instead of a principal. */
export type AuthenticationProblem = UnauthorizedProblem | ForbiddenProblem | ValidationProblem

/** The outcome of authenticating the current request, once it has been established. */
class EstablishedAuthentication extends Context.Tag("roster/reference/EstablishedAuthentication")<
  EstablishedAuthentication,
  Exit.Exit<Principal, AuthenticationProblem>
>() {}

/**
 * Who sends the current `/api/v1` request: the organization of its API key, else the user of its
 * session cookie acting for the organization named in `X-Organization-Id`. The API's middleware
 * establishes it once per request (rate limits and idempotency need it before the endpoint runs);
 * the {@link Authentication} of the endpoints then answers the same outcome.
 */
export class RequestAuthentication extends Context.Tag("roster/reference/RequestAuthentication")<RequestAuthentication, {
  /** The principal of the current request, or the problem to answer; established once per request when it was. */
  readonly authenticate: Effect.Effect<Principal, AuthenticationProblem, HttpServerRequest.HttpServerRequest>
  /** Authenticates the current request and runs `f` with the outcome, which the request keeps. */
  readonly establish: <A, E, R>(
    f: (outcome: Exit.Exit<Principal, AuthenticationProblem>) => Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E, R | HttpServerRequest.HttpServerRequest>
  /** The principal established for the current request, if it has one. */
  readonly established: Effect.Effect<Option.Option<Principal>>
}>() {}

export const RequestAuthenticationLive = Layer.effect(
  RequestAuthentication,
  Effect.gen(function*() {
    const apiKeys = yield* ApiKeys
    const auth = yield* Auth
    const { at, sameSiteOnly, unauthorized } = yield* makeRefusals

    /**
     * A key that was presented decides alone, over any cookie. Without a key, the session cookie
     * decides, and a request with neither is told both. No challenge is set here: it goes with the
     * endpoints' refusal, not with every answer to a request without credentials.
     */
    const authenticateAnew = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const key = presentedApiKey(request)
      if (key !== undefined) {
        return yield* apiKeys.authenticate(key).pipe(Effect.catchTag("Unauthenticated", (e) => unauthorized(e.reason)))
      }
      const token = sessionCookieOf(request)
      if (token === undefined) return yield* unauthorized(`missing ${API_KEY_HEADER} header or ${SESSION_COOKIE} cookie`)
      yield* sameSiteOnly
      return yield* auth.authenticate(token, request.headers[ORGANIZATION_HEADER.toLowerCase()]).pipe(
        Effect.catchAll((error): Effect.Effect<never, AuthenticationProblem, HttpServerRequest.HttpServerRequest> =>
          error._tag === "Unauthenticated"
            ? unauthorized(error.reason)
            : Effect.fail(problemOf(error, at(request)) as ForbiddenProblem | ValidationProblem)
        )
      )
    })

    return RequestAuthentication.of({
      authenticate: Effect.flatMap(
        Effect.serviceOption(EstablishedAuthentication),
        Option.match({ onNone: () => authenticateAnew, onSome: (outcome) => outcome })
      ),
      establish: (f) =>
        Effect.flatMap(
          Effect.exit(authenticateAnew),
          (outcome) => Effect.provideService(f(outcome), EstablishedAuthentication, outcome)
        ),
      established: Effect.map(
        Effect.serviceOption(EstablishedAuthentication),
        Option.flatMap((outcome) => Exit.isSuccess(outcome) ? Option.some(outcome.value) : Option.none())
      )
    })
  })
)

export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function*() {
    const { authenticate } = yield* RequestAuthentication
    const challenged = challengedWith(apiKeyChallenge)(authenticate)
    // The schemes are tried in order and only the last failure is answered. Both answer the
    // request's one outcome, which looks at the key and the cookie alike: a request refused by
    // `apiKey` is told the same by `session`.
    return { apiKey: () => challenged, session: () => challenged }
  })
)

export const SessionAuthenticationLive = Layer.effect(
  SessionAuthentication,
  Effect.gen(function*() {
    const auth = yield* Auth
    const { sameSiteOnly, unauthorized } = yield* makeRefusals
    const challenged = challengedWith(sessionChallenge)
    return {
      session: (cookie) => {
        const token = Redacted.value(cookie).trim()
        if (token === "") return challenged(unauthorized(`missing ${SESSION_COOKIE} cookie: sign in first`))
        return challenged(Effect.zipRight(
          sameSiteOnly,
          auth.sessionUser(token).pipe(Effect.catchTag("Unauthenticated", (e) => unauthorized(e.reason)))
        ))
      }
    }
  })
)
