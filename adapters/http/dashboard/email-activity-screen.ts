import type { HttpServerRequest } from "@effect/platform"
import { Subscribers } from "@roster/application"
import type { DomainEvent } from "@roster/domain"
import { Effect } from "effect"
import type { ApplicationError } from "../shared/application-errors.js"
import type { DashboardAssets } from "./assets.js"
import { page, refusalOf, type Workspace } from "./pages.js"
import type { Screen } from "./screen.js"
import type { DashboardTexts } from "./texts.js"

/**
 * Email activity: the bounces and complaints the email provider reported lately, newest first, a
 * page at a time, each with the subscriber it moved (a link to their page) and what it changed.
 * The sender name and the sending domain stay on the settings screen, which links here.
 */

/** Reports a page. */
const PER_PAGE = 50

/** One report as the table shows it, read from the event it recorded. */
const toRow = (event: DomainEvent, t: DashboardTexts) => {
  const subscriber = (event.data.subscriber ?? {}) as { readonly id?: unknown; readonly email?: unknown; readonly status?: unknown }
  const status = typeof subscriber.status === "string" ? subscriber.status : ""
  return {
    at: event.occurredAt.toISOString(),
    subscriberId: typeof subscriber.id === "string" ? subscriber.id : "",
    email: typeof subscriber.email === "string" ? subscriber.email : "",
    status,
    statusName: t.subscribers.statuses[status as keyof DashboardTexts["subscribers"]["statuses"]] ?? status
  }
}

const beforeOf = (request: HttpServerRequest.HttpServerRequest) =>
  new URL(request.url, "http://dashboard").searchParams.get("before") ?? undefined

export const makeEmailActivityScreen = (assets: DashboardAssets) =>
  Effect.gen(function*() {
    const subscribers = yield* Subscribers

    const refused = (workspace: Workspace, error: ApplicationError) => {
      const path = `${workspace.base}/email`
      if (error._tag === "InvalidInput" && error.field === "before") {
        return page(assets, workspace, "refusal", { message: workspace.t.emailActivity.badPosition, back: path }, {
          status: 400,
          menu: "emailActivity"
        })
      }
      const refusal = refusalOf(error, workspace.t)
      return page(assets, workspace, refusal.status === 404 ? "not-found" : "refusal", {
        message: refusal.text,
        back: workspace.base
      }, { status: refusal.status, menu: "emailActivity" })
    }

    return {
      routes: [
        {
          method: "GET",
          path: "/email",
          handle: (workspace, request) =>
            Effect.gen(function*() {
              const before = beforeOf(request)
              const found = yield* subscribers.providerMoves(workspace.principal, { before, limit: PER_PAGE })
              const path = `${workspace.base}/email`
              return page(assets, workspace, "email-activity", {
                reports: found.items.map((event) => toRow(event, workspace.t)),
                newest: before === undefined ? "" : path,
                older: found.before === null ? "" : `${path}?before=${found.before}`
              }, { menu: "emailActivity" })
            }).pipe(Effect.catchAll((error) => Effect.succeed(refused(workspace, error))))
        }
      ]
    } satisfies Screen
  })
