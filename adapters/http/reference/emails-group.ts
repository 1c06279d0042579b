import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { MessageId } from "@roster/domain"
import { Schema } from "effect"
import { AcceptedEmail, EmailMessage, messageFilters, SendEmailRequest, sendingRules } from "../shared/email-schemas.js"
import { API_ROUTE_ERRORS, POST_ERRORS } from "../shared/wire-errors.js"
import { IdInput, strictInput } from "../shared/wire-fields.js"
import { Authentication } from "./authentication.js"
import { cursorParam, limitParam } from "./pagination.js"
import { problems } from "./problems.js"

export const EmailPath = Schema.Struct({ email_id: IdInput(MessageId, "the email's id") })

export const EmailListParams = Schema.Struct({
  limit: limitParam,
  cursor: cursorParam,
  ...messageFilters
}).annotations(strictInput)

export const EmailList = Schema.Struct({
  items: Schema.Array(EmailMessage),
  next_cursor: Schema.NullOr(Schema.String).annotations({
    description: "pass as `cursor` for the next page; null on the last page"
  })
}).annotations({ identifier: "EmailList" })

export const EmailsGroup = HttpApiGroup.make("emails")
  .add(
    HttpApiEndpoint.post("send", "/emails/send")
      .setPayload(SendEmailRequest)
      .addSuccess(AcceptedEmail)
      .pipe(problems.endpoint("not_found", "limit_exceeded", ...POST_ERRORS))
      .annotateContext(OpenApi.annotations({
        summary: "Send an email",
        description: "Renders the email for the subscriber and queues it; answers 202 with the email's record. 400 " +
          "`validation_error` when `to` is no subscriber of the organization, when both or neither of `to` and " +
          "`subscriber_id` are given, or when the template cannot be rendered; 404 `not_found` for a template the " +
          "organization does not have; 403 for another organization's subscriber. Scope `emails:send`."
      }))
  )
  .add(
    HttpApiEndpoint.get("list", "/emails")
      .setUrlParams(EmailListParams)
      .addSuccess(EmailList)
      .annotateContext(OpenApi.annotations({
        summary: "List emails",
        description: "One page of the organization's emails, newest first, each with its history; optionally of one " +
          "subscriber or status. Follow `next_cursor` for the next page. Scope `emails:read`."
      }))
  )
  .add(
    HttpApiEndpoint.get("get", "/emails/:email_id")
      .setPath(EmailPath)
      .addSuccess(EmailMessage)
      .pipe(problems.endpoint("not_found"))
      .annotateContext(OpenApi.annotations({
        summary: "Get an email",
        description: "The email as it was rendered, its status, the provider's id and its history. Scope `emails:read`."
      }))
  )
  .middleware(Authentication)
  .pipe(problems.group(...API_ROUTE_ERRORS))
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Emails")
  .annotate(OpenApi.Description, sendingRules)
