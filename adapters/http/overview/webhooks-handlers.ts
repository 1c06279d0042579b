import { HttpApiBuilder } from "@effect/platform"
import { Webhooks } from "@roster/application"
import { Effect } from "effect"
import { respond } from "../shared/respond.js"
import { toCreatedWebhookEndpoint, toWebhookEndpoint } from "../shared/webhook-endpoint-schemas.js"
import { OverviewApi } from "./api.js"
import { dataOf, listOfAll, pageRequestOf } from "./pages.js"

export const WebhooksHandlersLive = HttpApiBuilder.group(OverviewApi, "webhooks", (handlers) =>
  Effect.gen(function*() {
    const webhooks = yield* Webhooks
    return handlers
      .handle("list", ({ urlParams }) =>
        respond(webhooks.list, (endpoints) => listOfAll(endpoints, pageRequestOf(urlParams), toWebhookEndpoint)))
      .handle("create", ({ payload }) =>
        respond((caller) => webhooks.create(caller, payload), (endpoint) => dataOf(toCreatedWebhookEndpoint(endpoint))))
      .handle("delete", ({ path }) => respond((caller) => webhooks.remove(caller, path.id)))
  }))
