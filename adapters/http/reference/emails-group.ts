import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { MessageId } from "@roster/domain"
import { Schema } from "effect"
import { AcceptedEmail, EmailMessage, messageFilters, SendEmailRequest, sendingRules } from "../shared/email-schemas.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"
import { IdInput, strictInput } from "../shared/wire-fields.js"
import { Authentication } from "./authentication.js"
import { cursorParam, limitParam } from "./pagination.js"
import { problems } from "./problems.js"
import { emailEndpoints as emails } from "../shared/email-endpoints.js"

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
      .pipe(problems.describe(emails.send))
  )
  .add(
    HttpApiEndpoint.get("list", "/emails")
      .setUrlParams(EmailListParams)
      .addSuccess(EmailList)
      .pipe(problems.describe(emails.list))
  )
  .add(
    HttpApiEndpoint.get("get", "/emails/:email_id")
      .setPath(EmailPath)
      .addSuccess(EmailMessage)
      .pipe(problems.describe(emails.get))
  )
  .middleware(Authentication)
  .pipe(problems.group(...API_ROUTE_ERRORS))
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Emails")
  .annotate(OpenApi.Description, sendingRules)
