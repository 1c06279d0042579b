import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { EmailMessage, messageFilters, sendingRules } from "../shared/email-schemas.js"
import { strictInput, withStatus } from "../shared/wire-fields.js"
import { OverviewAuthentication } from "./authentication.js"
import { OVERVIEW_PREFIX } from "./paths.js"
import { NumberedList, pageParams, Single } from "./schemas.js"
import { emailEndpoints } from "../shared/email-endpoints.js"
import { envelopes } from "./errors.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"

export const EmailListParams = Schema.Struct({ ...pageParams, ...messageFilters }).annotations(strictInput)

const EmailData = Single(EmailMessage, "EmailData")

const emails = emailEndpoints("id")

export const EmailsGroup = HttpApiGroup.make("emails")
  .add(
    envelopes.declare({
      ...emails.send,
      description: "Renders the email for the subscriber and queues it; answers 202 with the email's record. 400 " +
        "`validation_error` when `to` is no subscriber of the organization or the template cannot be rendered; 404 " +
        "for a template the organization does not have; 402 `limit_exceeded` past the plan's monthly email limit. " +
        "Scope `emails:send`."
    }).addSuccess(withStatus(EmailData, 202, "AcceptedEmailData"))
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
    envelopes.declare(emails.get).addSuccess(EmailData)
  )
  .middleware(OverviewAuthentication)
  .pipe(envelopes.group(...API_ROUTE_ERRORS))
  .prefix(OVERVIEW_PREFIX)
  .annotate(OpenApi.Title, "Emails")
  .annotate(OpenApi.Description, sendingRules)
