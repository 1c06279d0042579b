import { HttpApiBuilder } from "@effect/platform"
import { numberedPage, Webhooks } from "@roster/application"
import { Effect } from "effect"
import { CurrentPrincipal } from "../current-principal.js"
import { toCreatedWebhookEndpoint, toWebhookEndpoint } from "../reference/webhook-schemas.js"
import { answerWithError, listOf } from "./answers.js"
import { OverviewApi } from "./api.js"

export const WebhooksHandlersLive = HttpApiBuilder.group(OverviewApi, "webhooks", (handlers) =>
  Effect.gen(function*() {
    const webhooks = yield* Webhooks
    return handlers
      .handle("list", ({ urlParams }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) => webhooks.list(principal)),
          // An organization has at most 50 endpoints: the use case answers them all, and this form numbers the pages.
          Effect.map((endpoints) => {
            const request = { page: urlParams.page, perPage: urlParams.per_page }
            const offset = (request.page - 1) * request.perPage
            return listOf(
              numberedPage(endpoints.slice(offset, offset + request.perPage), endpoints.length, request),
              toWebhookEndpoint
            )
          }),
          answerWithError
        ))
      .handle("create", ({ payload }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) =>
            webhooks.create(principal, { url: payload.url, events: payload.events, description: payload.description })
          ),
          Effect.map((endpoint) => ({ data: toCreatedWebhookEndpoint(endpoint) })),
          answerWithError
        ))
      .handle("delete", ({ path }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) => webhooks.remove(principal, path.id)),
          answerWithError
        ))
  }))
