import type { HttpRouter, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import type { ApplicationError } from "../shared/application-errors.js"
import type { DashboardAssets } from "./assets.js"
import { confirmDeletion, type DeletionTexts, fill, redirect, type Workspace } from "./pages.js"
import type { ScreenRoute } from "./screen.js"
import type { DashboardTexts } from "./texts.js"

/** Where a record's deletion leads: its name, the form's target, the way back, the list after. */
export interface DeletionPlaces {
  readonly name: string
  readonly action: string
  readonly cancel: string
  readonly list: string
  /** The consequence's places filled, where it has any. */
  readonly consequence?: Readonly<Record<string, string | number>>
}

/**
 * The two routes that delete one of a screen's records at `{path}/delete`: the page that asks,
 * and the form that deletes it through its use case and leads back to the list with a message.
 * `withRecord` is the screen's own way to the record the path names (or its refusal).
 */
export const deletionRoutes = <A>(assets: DashboardAssets, options: {
  readonly path: string
  readonly menu: string
  readonly texts: (t: DashboardTexts) => DeletionTexts & { readonly deleted: string }
  readonly withRecord: (
    workspace: Workspace,
    f: (record: A) => Effect.Effect<HttpServerResponse.HttpServerResponse, ApplicationError>
  ) => Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpRouter.RouteContext>
  readonly places: (workspace: Workspace, record: A) => DeletionPlaces
  readonly remove: (workspace: Workspace, record: A) => Effect.Effect<unknown, ApplicationError>
}): ReadonlyArray<ScreenRoute> => [
  {
    method: "GET",
    path: `${options.path}/delete`,
    handle: (workspace) =>
      options.withRecord(workspace, (record) => {
        const places = options.places(workspace, record)
        return Effect.succeed(confirmDeletion(assets, workspace, options.texts(workspace.t), { ...places, menu: options.menu }))
      })
  },
  {
    method: "POST",
    path: `${options.path}/delete`,
    handle: (workspace) =>
      options.withRecord(workspace, (record) => {
        const places = options.places(workspace, record)
        return options.remove(workspace, record).pipe(
          Effect.as(redirect(places.list, { kind: "ok", text: fill(options.texts(workspace.t).deleted, { name: places.name }) }))
        )
      })
  }
]
