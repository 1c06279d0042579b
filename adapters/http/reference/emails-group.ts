import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { AcceptedEmail, EmailMessage, messageFilters, sendingRules } from "../shared/email-schemas.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"
import { strictInput } from "../shared/wire-fields.js"
import { Authentication } from "./authentication.js"
import { cursorParam, limitParam } from "./pagination.js"
import { problems } from "./problems.js"
import { emailEndpoints } from "../shared/email-endpoints.js"

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

const emails = emailEndpoints("email_id")

export const EmailsGroup = HttpApiGroup.make("emails")
  .add(problems.declare(emails.send).addSuccess(AcceptedEmail))
  .add(
    HttpApiEndpoint.get("list", "/emails")
      .setUrlParams(EmailListParams)
      .addSuccess(EmailList)
      .pipe(problems.describe(emails.list))
  )
  .add(
    problems.declare(emails.get).addSuccess(EmailMessage)
  )
  .middleware(Authentication)
  .pipe(problems.group(...API_ROUTE_ERRORS))
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Emails")
  .annotate(OpenApi.Description, sendingRules)
