import { type HttpApiMiddleware, HttpApiSecurity, HttpServerRequest, OpenApi } from "@effect/platform"
import { ApiKeys, Auth, type Principal } from "@roster/application"
import { Context, Effect, Exit, Layer, Option, Redacted } from "effect"
import { type ApiError, apiError, withHeaders } from "./api-error.js"
import { API_KEY_HEADER, type apiKeyScheme, presentedApiKey } from "./api-key.js"
import { apiErrorOf, ORGANIZATION_HEADER } from "./application-errors.js"
import type { CurrentPrincipal } from "./current-principal.js"
import type { CurrentSessionUser } from "./current-session-user.js"
import { HttpSettings } from "./http-settings.js"
import { crossSiteReason, SESSION_COOKIE, sessionCookieOf } from "./session-cookie.js"

export const sessionScheme = HttpApiSecurity.apiKey({ in: "cookie", key: SESSION_COOKIE }).pipe(
  HttpApiSecurity.annotate(
    OpenApi.Description,
    "The sign-in session, set by `GET /auth/verify` and ended by `POST /auth/logout`. On `/api/v1` a session " +
      `names the organization it acts for in the \`${ORGANIZATION_HEADER}\` header (400 without it, 403 when the user is ` +
      "not a member); owners hold every scope (`*`), members those of subscribers and tags. Requests that change " +
      "something must come from the service's own site (`Sec-Fetch-Site` and `Origin` are checked)."
  )
)

/** A 401 names the scheme it wants (RFC 9110 asks every 401 for a challenge). */
const challengedWith = (scheme: string) => <A, C extends AuthenticationErrorCode, R>(
  effect: Effect.Effect<A, ApiError<C>, R>
): Effect.Effect<A, ApiError<C>, R> =>
  Effect.mapError(effect, (error) => error.code === "unauthorized" ? withHeaders(error, { "WWW-Authenticate": scheme }) : error)
const apiKeyChallenge = `ApiKey header="${API_KEY_HEADER}"`
const sessionChallenge = `Cookie cookie-name="${SESSION_COOKIE}"`

const unauthorized = (detail: string) => Effect.fail(apiError("unauthorized", detail))

/** Refuses a request with a session cookie that changes something from another site. */
const makeSameSiteOnly = Effect.map(HttpSettings, ({ publicBaseUrl }) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const reason = crossSiteReason(request, publicBaseUrl)
    return reason === undefined ? Effect.void : Effect.fail(apiError("forbidden", reason))
  }))

/** What authenticating a request can answer instead of a principal. */
export type AuthenticationErrorCode = "unauthorized" | "forbidden" | "validation_error"
export type AuthenticationError = ApiError<AuthenticationErrorCode>

/**
 * The outcome of authenticating each request, once it has been established, by the request as
 * it came in (a form may hand its endpoints a copy of the request with another URL). Kept beside
 * the request rather than in its context, which every added service would copy whole.
 */
const established = new WeakMap<object, Exit.Exit<Principal, AuthenticationError>>()

/** The principal established for a request, once authentication has succeeded for it. */
export const establishedPrincipalOf = (request: HttpServerRequest.HttpServerRequest): Principal | undefined => {
  const outcome = established.get(request.source as object)
  return outcome !== undefined && Exit.isSuccess(outcome) ? outcome.value : undefined
}

/**
 * Who sends the current API request: the organization of its API key, else the user of its
 * session cookie acting for the organization named in `X-Organization-Id`. The API's middleware
 * establishes it once per request (rate limits and idempotency need it before the endpoint runs);
 * the authentication middleware of the endpoints then answers the same outcome.
 */
export class RequestAuthentication extends Context.Tag("roster/http/RequestAuthentication")<RequestAuthentication, {
  /** The principal of the current request, or the error to answer; established once per request when it was. */
  readonly authenticate: Effect.Effect<Principal, AuthenticationError, HttpServerRequest.HttpServerRequest>
  /** Authenticates the current request and runs `f` with the outcome, which the request keeps. */
  readonly establish: <A, E, R>(
    f: (outcome: Exit.Exit<Principal, AuthenticationError>) => Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E, R | HttpServerRequest.HttpServerRequest>
  /** The principal established for the current request, if it has one. */
  readonly established: Effect.Effect<Option.Option<Principal>>
}>() {}

export const RequestAuthenticationLive = Layer.effect(
  RequestAuthentication,
  Effect.gen(function*() {
    const apiKeys = yield* ApiKeys
    const auth = yield* Auth
    const sameSiteOnly = yield* makeSameSiteOnly

    /**
     * A key that was presented decides alone, over any cookie. Without a key, the session cookie
     * decides, and a request with neither is told both. No challenge is set here: it goes with the
     * endpoints' refusal, not with every answer to a request without credentials.
     */
    const authenticateAnew = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const key = presentedApiKey(request.headers)
      if (key !== undefined) {
        return yield* apiKeys.authenticate(key).pipe(Effect.catchTag("Unauthenticated", (e) => unauthorized(e.reason)))
      }
      const token = sessionCookieOf(request)
      if (token === undefined) return yield* unauthorized(`missing ${API_KEY_HEADER} header or ${SESSION_COOKIE} cookie`)
      yield* sameSiteOnly
      return yield* auth.authenticate(token, request.headers[ORGANIZATION_HEADER.toLowerCase()]).pipe(
        Effect.mapError((error) => apiErrorOf(error))
      )
    })

    const outcomeOf = Effect.map(HttpServerRequest.HttpServerRequest, (request) => established.get(request.source as object))

    return RequestAuthentication.of({
      authenticate: Effect.flatMap(outcomeOf, (outcome) => outcome ?? authenticateAnew),
      establish: (f) =>
        Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
          Effect.flatMap(Effect.exit(authenticateAnew), (outcome) => {
            established.set(request.source as object, outcome)
            return f(outcome)
          })),
      established: Effect.map(
        Effect.serviceOption(HttpServerRequest.HttpServerRequest),
        (request) => Option.isSome(request) ? Option.fromNullable(establishedPrincipalOf(request.value)) : Option.none()
      )
    })
  })
)

/** The middleware of API endpoints: an API key or a session with `X-Organization-Id`. */
export type AuthenticationMiddleware = HttpApiMiddleware.HttpApiMiddlewareSecurity<
  { readonly apiKey: typeof apiKeyScheme; readonly session: typeof sessionScheme },
  Context.Tag.Service<typeof CurrentPrincipal>,
  AuthenticationError
>

/** The middleware of the signed-in `/auth/*` endpoints: a session, no organization. */
export type SessionAuthenticationMiddleware = HttpApiMiddleware.HttpApiMiddlewareSecurity<
  { readonly session: typeof sessionScheme },
  Context.Tag.Service<typeof CurrentSessionUser>,
  ApiError<"unauthorized" | "forbidden">
>

/**
 * A form's authentication of API endpoints: the request's one outcome, a 401 with its challenge.
 * The schemes are tried in order and only the last failure is answered; both answer the request's
 * one outcome, which looks at the key and the cookie alike, so a request refused by `apiKey` is
 * told the same by `session`.
 */
export const makeAuthenticationLive = <I>(tag: Context.Tag<I, AuthenticationMiddleware>) =>
  Layer.effect(
    tag,
    Effect.map(RequestAuthentication, ({ authenticate }) => {
      const challenged = challengedWith(apiKeyChallenge)(authenticate)
      return { apiKey: () => challenged, session: () => challenged }
    })
  )

/** A form's authentication of the signed-in `/auth/*` endpoints. */
export const makeSessionAuthenticationLive = <I>(tag: Context.Tag<I, SessionAuthenticationMiddleware>) =>
  Layer.effect(
    tag,
    Effect.gen(function*() {
      const auth = yield* Auth
      const sameSiteOnly = yield* makeSameSiteOnly
      const challenged = challengedWith(sessionChallenge)
      return {
        session: (cookie: Redacted.Redacted) => {
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
