import { HttpApiBuilder } from "@effect/platform"
import { Emails } from "@roster/application"
import { Effect } from "effect"
import { toEmailMessage, toEmailToSend } from "../shared/email-schemas.js"
import { respond } from "../shared/respond.js"
import { ReferenceApi } from "./api.js"

export const EmailsHandlersLive = HttpApiBuilder.group(ReferenceApi, "emails", (handlers) =>
  Effect.gen(function*() {
    const emails = yield* Emails
    return handlers
      .handle("send", ({ payload }) =>
        respond((caller) =>
          emails.send(caller, toEmailToSend(payload)), toEmailMessage))
      .handle("list", ({ urlParams }) =>
        respond(
          (caller) =>
            emails.list(caller, {
              limit: urlParams.limit,
              cursor: urlParams.cursor,
              subscriberId: urlParams.subscriber_id,
              status: urlParams.status
            }),
          (page) => ({ items: page.items.map(toEmailMessage), next_cursor: page.nextCursor })
        ))
      .handle("get", ({ path }) => respond((caller) => emails.get(caller, path.email_id), toEmailMessage))
  }))
