import { Organizations, Subscribers } from "@roster/application"
import { Effect } from "effect"
import type { DashboardAssets } from "./assets.js"
import { page, refusalOf } from "./pages.js"
import type { Screen } from "./screen.js"

/** The organization's start: its plan, its subscribers against the plan's limit, its members. */
export const makeOverviewScreen = (assets: DashboardAssets) =>
  Effect.gen(function*() {
    const organizations = yield* Organizations
    const subscribers = yield* Subscribers
    return {
      routes: [{
        method: "GET",
        path: "",
        handle: (workspace) =>
          Effect.all([
            organizations.overview(workspace.organization),
            subscribers.list(workspace.principal, { sort: "created_at", order: "desc", limit: 1 })
          ]).pipe(
            Effect.map(([overview, firstPage]) =>
              page(assets, workspace, "overview", {
                overview: {
                  plan: workspace.organization.tier,
                  subscribers: firstPage.total,
                  subscriberLimit: overview.subscriberLimit,
                  members: overview.memberCount
                }
              }, { menu: "overview" })
            ),
            Effect.catchAll((error) =>
              Effect.succeed(page(assets, workspace, "refusal", { message: refusalOf(error, workspace.t).text, back: "/app" }, {
                status: refusalOf(error, workspace.t).status
              }))
            )
          )
      }]
    } satisfies Screen
  })
