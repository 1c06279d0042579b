import type { SessionUser } from "@roster/application"
import { Context } from "effect"

/**
 * The signed-in user of a session cookie, before any organization is chosen: provided to the
 * `/auth/*` endpoints that need a session.
 */
export class CurrentSessionUser
  extends Context.Tag("roster/http/CurrentSessionUser")<CurrentSessionUser, SessionUser>()
{}
