import {
  HttpApiMiddleware,
  HttpApiSecurity,
  HttpApp,
  HttpServerRequest,
  HttpServerResponse,
  OpenApi
} from "@effect/platform"
import { ApiKeys, Auth, type Principal } from "@roster/application"
import { Effect, Layer, Redacted, Schema } from "effect"
import { CurrentPrincipal } from "../current-principal.js"
import { CurrentSessionUser } from "../current-session-user.js"
import { HttpSettings } from "../http-settings.js"
import { pathOf } from "../request-path.js"
import { crossSiteReason, SESSION_COOKIE, sessionCookieOf } from "../session-cookie.js"
import { ORGANIZATION_HEADER, problemOf } from "./application-problems.js"
import { ForbiddenProblem, makeProblem, UnauthorizedProblem, ValidationProblem } from "./problems.js"

const API_KEY_HEADER = "X-API-Key"

const apiKeyScheme = HttpApiSecurity.apiKey({ in: "header", key: API_KEY_HEADER }).pipe(
  HttpApiSecurity.annotate(
    OpenApi.Description,
    "An API key of the organization (`svc_live_...` or `svc_test_...`), sent in the `X-API-Key` header. " +
      "The key's organization is the one acted for; its scopes decide what it may do. When a request carries " +
      "both a key and a session cookie, the key decides alone."
  )
)

const sessionScheme = HttpApiSecurity.apiKey({ in: "cookie", key: SESSION_COOKIE }).pipe(
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
const challenge = (scheme: string) =>
  HttpApp.appendPreResponseHandler((_request, response) =>
    Effect.succeed(HttpServerResponse.setHeader(response, "WWW-Authenticate", scheme))
  )
const apiKeyChallenge = `ApiKey header="${API_KEY_HEADER}"`
const sessionChallenge = `Cookie cookie-name="${SESSION_COOKIE}"`

const presentedApiKey = (request: HttpServerRequest.HttpServerRequest): string | undefined => {
  const value = request.headers[API_KEY_HEADER.toLowerCase()]
  return value === undefined || value.trim() === "" ? undefined : value.trim()
}

const makeRefusals = (scheme: string) => Effect.gen(function*() {
  const { errorsBaseUrl, publicBaseUrl } = yield* HttpSettings
  const at = (request: HttpServerRequest.HttpServerRequest) => ({ errorsBaseUrl, instance: pathOf(request) })
  const unauthorized = (detail: string) =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      Effect.zipRight(challenge(scheme), Effect.fail(makeProblem("unauthorized", { ...at(request), detail }))))
  /** Refuses a request with a session cookie that changes something from another site. */
  const sameSiteOnly = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const reason = crossSiteReason(request, publicBaseUrl)
    return reason === undefined ? Effect.void : Effect.fail(makeProblem("forbidden", { ...at(request), detail: reason }))
  })
  return { at, unauthorized, sameSiteOnly } as const
})

export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function*() {
    const apiKeys = yield* ApiKeys
    const auth = yield* Auth
    const { at, sameSiteOnly, unauthorized } = yield* makeRefusals(apiKeyChallenge)

    const byApiKey = (
      presented: string
    ): Effect.Effect<Principal, UnauthorizedProblem, HttpServerRequest.HttpServerRequest> =>
      apiKeys.authenticate(presented).pipe(Effect.catchTag("Unauthenticated", (e) => unauthorized(e.reason)))

    // The schemes are tried in order and only the last failure is answered: a failure of `apiKey`
    // is never seen by the client, so `session`, tried next, answers for both.
    return {
      /** A valid key wins at once, over any cookie. */
      apiKey: (key) => {
        const presented = Redacted.value(key).trim()
        return presented === "" ? unauthorized(`missing ${API_KEY_HEADER} header`) : byApiKey(presented)
      },
      /**
       * A key that was presented failed: it decides alone, so its own reason is answered (looked up
       * once more, which only refused keys pay). Without a key, the session cookie decides, and a
       * request with neither is told both.
       */
      session: (): Effect.Effect<
        Principal,
        UnauthorizedProblem | ForbiddenProblem | ValidationProblem,
        HttpServerRequest.HttpServerRequest
      > =>
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          const key = presentedApiKey(request)
          if (key !== undefined) return yield* byApiKey(key)
          const token = sessionCookieOf(request)
          if (token === undefined) {
            return yield* unauthorized(`missing ${API_KEY_HEADER} header or ${SESSION_COOKIE} cookie`)
          }
          yield* sameSiteOnly
          return yield* auth.authenticate(token, request.headers[ORGANIZATION_HEADER.toLowerCase()]).pipe(
            Effect.catchAll((error): Effect.Effect<
              never,
              UnauthorizedProblem | ForbiddenProblem | ValidationProblem,
              HttpServerRequest.HttpServerRequest
            > =>
              error._tag === "Unauthenticated"
                ? unauthorized(error.reason)
                : Effect.fail(problemOf(error, at(request)) as ForbiddenProblem | ValidationProblem)
            )
          )
        })
    }
  })
)

export const SessionAuthenticationLive = Layer.effect(
  SessionAuthentication,
  Effect.gen(function*() {
    const auth = yield* Auth
    const { sameSiteOnly, unauthorized } = yield* makeRefusals(sessionChallenge)
    return {
      session: (cookie) => {
        const token = Redacted.value(cookie).trim()
        if (token === "") return unauthorized(`missing ${SESSION_COOKIE} cookie: sign in first`)
        return Effect.zipRight(
          sameSiteOnly,
          auth.sessionUser(token).pipe(Effect.catchTag("Unauthenticated", (e) => unauthorized(e.reason)))
        )
      }
    }
  })
)
