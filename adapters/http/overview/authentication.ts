import { HttpApiMiddleware } from "@effect/platform"
import { apiKeyScheme } from "../shared/api-key.js"
import { makeAuthenticationLive, makeSessionAuthenticationLive, sessionScheme } from "../shared/authentication.js"
import { CurrentPrincipal } from "../shared/current-principal.js"
import { CurrentSessionUser } from "../shared/current-session-user.js"
import { envelopes } from "./errors.js"

/**
 * Every overview API endpoint needs an API key or a session cookie (with `X-Organization-Id`);
 * it provides the {@link CurrentPrincipal}. Refusals are answered in this form's error body.
 */
export class OverviewAuthentication extends HttpApiMiddleware.Tag<OverviewAuthentication>()(
  "roster/overview/Authentication",
  {
    failure: envelopes.union("unauthorized", "forbidden", "validation_error"),
    provides: CurrentPrincipal,
    security: { apiKey: apiKeyScheme, session: sessionScheme }
  }
) {}

/** The `/auth/*` endpoints of a signed-in user need a session cookie, and no organization. */
export class OverviewSessionAuthentication
  extends HttpApiMiddleware.Tag<OverviewSessionAuthentication>()("roster/overview/SessionAuthentication", {
    failure: envelopes.union("unauthorized", "forbidden"),
    provides: CurrentSessionUser,
    security: { session: sessionScheme }
  })
{}

export const OverviewAuthenticationLive = makeAuthenticationLive(OverviewAuthentication)
export const OverviewSessionAuthenticationLive = makeSessionAuthenticationLive(OverviewSessionAuthentication)
