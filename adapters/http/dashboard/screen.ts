import type { HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import type { Effect } from "effect"
import type { FormFields, Workspace } from "./pages.js"

/**
 * One screen of an organization: its routes below `/app/o/{slug}`. The dashboard has checked the
 * session, the membership and (for a form) its origin and token before a route runs.
 */
export interface ScreenRoute {
  readonly method: "GET" | "POST"
  /** Below `/app/o/{slug}`: `""` for the organization's start, `/tags/:tag_id/edit`. */
  readonly path: string
  readonly handle: (
    workspace: Workspace,
    request: HttpServerRequest.HttpServerRequest,
    form: FormFields
  ) => Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpRouter.RouteContext>
}

export interface Screen {
  readonly routes: ReadonlyArray<ScreenRoute>
}
