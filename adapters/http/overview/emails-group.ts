import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { MessageId } from "@roster/domain"
import { Schema } from "effect"
import { EmailMessage, messageFilters, SendEmailRequest, sendingRules } from "../shared/email-schemas.js"
import { IdInput, strictInput, withStatus } from "../shared/wire-fields.js"
import { OverviewAuthentication } from "./authentication.js"
import { OVERVIEW_PREFIX } from "./paths.js"
import { NumberedList, pageParams, Single } from "./schemas.js"
import { emailEndpoints as emails } from "../shared/email-endpoints.js"
import { envelopes } from "./errors.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"

export const EmailPath = Schema.Struct({ id: IdInput(MessageId, "the email's id") })

export const EmailListParams = Schema.Struct({ ...pageParams, ...messageFilters }).annotations(strictInput)

const EmailData = Single(EmailMessage, "EmailData")

export const EmailsGroup = HttpApiGroup.make("emails")
  .add(
    HttpApiEndpoint.post("send", "/emails/send")
      .setPayload(SendEmailRequest)
      .addSuccess(withStatus(EmailData, 202, "AcceptedEmailData"))
      .pipe(envelopes.describe({
        ...emails.send,
        description: "Renders the email for the subscriber and queues it; answers 202 with the email's record. 400 " +
          "`validation_error` when `to` is no subscriber of the organization or the template cannot be rendered; 404 " +
          "for a template the organization does not have; 402 `limit_exceeded` past the plan's monthly email limit. " +
          "Scope `emails:send`."
      }))
  )
  .add(
    HttpApiEndpoint.get("list", "/emails")
      .setUrlParams(EmailListParams)
      .addSuccess(NumberedList(EmailMessage, "EmailList"))
      .pipe(envelopes.describe({
        ...emails.list,
        description: "One numbered page of the organization's emails, newest first, each with its history; optionally " +
          "of one subscriber or status. Scope `emails:read`."
      }))
  )
  .add(
    HttpApiEndpoint.get("get", "/emails/:id")
      .setPath(EmailPath)
      .addSuccess(EmailData)
      .pipe(envelopes.describe(emails.get))
  )
  .middleware(OverviewAuthentication)
  .pipe(envelopes.group(...API_ROUTE_ERRORS))
  .prefix(OVERVIEW_PREFIX)
  .annotate(OpenApi.Title, "Emails")
  .annotate(OpenApi.Description, sendingRules)
