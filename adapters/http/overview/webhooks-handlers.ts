import { HttpApiBuilder } from "@effect/platform"
import { numberedPage, Webhooks } from "@roster/application"
import type { WebhookEndpoint } from "@roster/domain"
import { Effect } from "effect"
import { respond } from "../shared/respond.js"
import { toCreatedWebhookEndpoint, toWebhookEndpoint } from "../shared/webhook-endpoint-schemas.js"
import { OverviewApi } from "./api.js"
import { dataOf, listOf } from "./pages.js"

/** An organization has at most a few dozen endpoints: the use case answers them all, and this form numbers the pages. */
const pageOf = (endpoints: ReadonlyArray<WebhookEndpoint>, request: { readonly page: number; readonly perPage: number }) => {
  const offset = (request.page - 1) * request.perPage
  return listOf(numberedPage(endpoints.slice(offset, offset + request.perPage), endpoints.length, request), toWebhookEndpoint)
}

export const WebhooksHandlersLive = HttpApiBuilder.group(OverviewApi, "webhooks", (handlers) =>
  Effect.gen(function*() {
    const webhooks = yield* Webhooks
    return handlers
      .handle("list", ({ urlParams }) =>
        respond(webhooks.list, (endpoints) => pageOf(endpoints, { page: urlParams.page, perPage: urlParams.per_page })))
      .handle("create", ({ payload }) =>
        respond((caller) => webhooks.create(caller, payload), (endpoint) => dataOf(toCreatedWebhookEndpoint(endpoint))))
      .handle("delete", ({ path }) => respond((caller) => webhooks.remove(caller, path.id)))
  }))
