import type { HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import type { Effect } from "effect"
import type { FormFields, Workspace } from "./pages.js"
import type { UploadedFile } from "./upload.js"

/**
 * One screen of an organization: its routes below `/app/o/{slug}`. The dashboard has checked the
 * session, the membership and (for a form) its origin and token before a route runs.
 */
export interface ScreenRoute {
  readonly method: "GET" | "POST"
  /** Below `/app/o/{slug}`: `""` for the organization's start, `/tags/:tag_id/edit`. */
  readonly path: string
  /**
   * What a POST sends: a form (`application/x-www-form-urlencoded`, the default), or a form with
   * a file (`multipart/form-data`), whose fields before the file are its `form` (the form token
   * among them) and whose file streams to the route.
   */
  readonly body?: "form" | "file"
  readonly handle: (
    workspace: Workspace,
    request: HttpServerRequest.HttpServerRequest,
    form: FormFields,
    /** The file of a `body: "file"` route's form, if it sent one. */
    file?: UploadedFile
  ) => Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpRouter.RouteContext>
}

export interface Screen {
  readonly routes: ReadonlyArray<ScreenRoute>
}
