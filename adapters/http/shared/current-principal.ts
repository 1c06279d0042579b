import type { Principal } from "@roster/application"
import { Context } from "effect"

/** Who is calling: provided by the authentication middleware to every authenticated endpoint. */
export class CurrentPrincipal extends Context.Tag("roster/http/CurrentPrincipal")<CurrentPrincipal, Principal>() {}
