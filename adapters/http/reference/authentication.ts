import { HttpApiMiddleware } from "@effect/platform"
import { apiKeyScheme } from "../shared/api-key.js"
import { makeAuthenticationLive, makeSessionAuthenticationLive, sessionScheme } from "../shared/authentication.js"
import { CurrentPrincipal } from "../shared/current-principal.js"
import { CurrentSessionUser } from "../shared/current-session-user.js"
import { problems } from "./problems.js"

/**
 * Every `/api/v1` endpoint needs an API key or a session cookie; it provides the
 * {@link CurrentPrincipal}. A request without a session gets the API key problems (401), one
 * with a session may also get 400 (no organization named) or 403 (not a member, another site).
 */
export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("roster/reference/Authentication", {
  failure: problems.union("unauthorized", "forbidden", "validation_error"),
  provides: CurrentPrincipal,
  security: { apiKey: apiKeyScheme, session: sessionScheme }
}) {}

/** The `/auth/*` endpoints of a signed-in user need a session cookie, and no organization. */
export class SessionAuthentication
  extends HttpApiMiddleware.Tag<SessionAuthentication>()("roster/reference/SessionAuthentication", {
    failure: problems.union("unauthorized", "forbidden"),
    provides: CurrentSessionUser,
    security: { session: sessionScheme }
  })
{}

export const AuthenticationLive = makeAuthenticationLive(Authentication)
export const SessionAuthenticationLive = makeSessionAuthenticationLive(SessionAuthentication)
