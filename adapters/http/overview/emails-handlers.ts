import { HttpApiBuilder } from "@effect/platform"
import { Emails } from "@roster/application"
import { Effect } from "effect"
import { toEmailMessage, toEmailToSend } from "../shared/email-schemas.js"
import { respond } from "../shared/respond.js"
import { OverviewApi } from "./api.js"
import { dataOf, listOf } from "./pages.js"

export const EmailsHandlersLive = HttpApiBuilder.group(OverviewApi, "emails", (handlers) =>
  Effect.gen(function*() {
    const emails = yield* Emails
    return handlers
      .handle("send", ({ payload }) =>
        respond((caller) =>
          emails.send(caller, toEmailToSend(payload)), (record) => dataOf(toEmailMessage(record))))
      .handle("list", ({ urlParams }) =>
        respond(
          (caller) =>
            emails.listPage(caller, {
              page: urlParams.page,
              perPage: urlParams.per_page,
              subscriberId: urlParams.subscriber_id,
              status: urlParams.status
            }),
          (page) => listOf(page, toEmailMessage)
        ))
      .handle("get", ({ path }) => respond((caller) => emails.get(caller, path.id), (record) => dataOf(toEmailMessage(record))))
  }))
