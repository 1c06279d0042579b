import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { MessageId } from "@roster/domain"
import { Schema } from "effect"
import { EmailMessage, messageFilters, SendEmailRequest, sendingRules } from "../shared/email-schemas.js"
import { IdInput, strictInput, withStatus } from "../shared/wire-fields.js"
import { OverviewAuthentication } from "./authentication.js"
import { OVERVIEW_PREFIX } from "./paths.js"
import { NumberedList, pageParams, Single } from "./schemas.js"

export const EmailPath = Schema.Struct({ id: IdInput(MessageId, "the email's id") })

export const EmailListParams = Schema.Struct({ ...pageParams, ...messageFilters }).annotations(strictInput)

const EmailData = Single(EmailMessage, "EmailData")

export const EmailsGroup = HttpApiGroup.make("emails")
  .add(
    HttpApiEndpoint.post("send", "/emails/send")
      .setPayload(SendEmailRequest)
      .addSuccess(withStatus(EmailData, 202, "AcceptedEmailData"))
      .annotateContext(OpenApi.annotations({
        summary: "Send an email",
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
      .annotateContext(OpenApi.annotations({
        summary: "List emails",
        description: "One numbered page of the organization's emails, newest first, each with its history; optionally " +
          "of one subscriber or status. Scope `emails:read`."
      }))
  )
  .add(
    HttpApiEndpoint.get("get", "/emails/:id")
      .setPath(EmailPath)
      .addSuccess(EmailData)
      .annotateContext(OpenApi.annotations({
        summary: "Get an email",
        description: "The email as it was rendered, its status, the provider's id and its history. Scope `emails:read`."
      }))
  )
  .middleware(OverviewAuthentication)
  .prefix(OVERVIEW_PREFIX)
  .annotate(OpenApi.Title, "Emails")
  .annotate(OpenApi.Description, sendingRules)
