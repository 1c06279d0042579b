import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import {
  AddSendingDomainRequest,
  domainDescriptions,
  EmailSettings,
  SendingDomain,
  settingsDescription,
  UpdateEmailSettingsRequest
} from "../shared/email-settings-schemas.js"
import { withStatus } from "../shared/wire-fields.js"
import { API_ROUTE_ERRORS, BODY_ERRORS, POST_ERRORS } from "../shared/wire-errors.js"
import { Authentication } from "./authentication.js"
import { problems } from "./problems.js"
import { NoFields, optionalBody } from "../shared/action-body.js"

export const SettingsGroup = HttpApiGroup.make("settings")
  .add(
    HttpApiEndpoint.get("getEmail", "/settings/email")
      .addSuccess(EmailSettings)
      .annotateContext(OpenApi.annotations({
        summary: "Get the email settings",
        description: "The sender settings and the From header they make. Scope `*`."
      }))
  )
  .add(
    HttpApiEndpoint.put("updateEmail", "/settings/email")
      .setPayload(UpdateEmailSettingsRequest)
      .addSuccess(EmailSettings)
      .pipe(problems.endpoint(...BODY_ERRORS))
      .annotateContext(OpenApi.annotations({
        summary: "Update the email settings",
        description: "Sets `from_name` (null goes back to the organization's name) and `from_address` (null goes back " +
          "to the service's address); fields left out stay. A `from_address` must be on the organization's verified " +
          "custom domain, or be the service's own address: anything else is 400 `validation_error`. Scope `*`."
      }))
  )
  .add(
    HttpApiEndpoint.post("addDomain", "/settings/email/domain")
      .setPayload(AddSendingDomainRequest)
      .addSuccess(withStatus(SendingDomain, 201, "AddedSendingDomain"))
      .pipe(problems.endpoint("limit_exceeded", "conflict", ...POST_ERRORS))
      .annotateContext(OpenApi.annotations({ summary: "Add a custom sending domain", description: domainDescriptions.add }))
  )
  .add(
    HttpApiEndpoint.get("checkDomain", "/settings/email/domain")
      .addSuccess(SendingDomain)
      .pipe(problems.endpoint("not_found"))
      .annotateContext(OpenApi.annotations({ summary: "Check the custom sending domain", description: domainDescriptions.check }))
  )
  .add(
    HttpApiEndpoint.del("removeDomain", "/settings/email/domain")
      .setPayload(NoFields)
      .pipe(problems.endpoint("not_found", ...BODY_ERRORS))
      .annotate(OpenApi.Transform, optionalBody)
      .annotateContext(OpenApi.annotations({ summary: "Remove the custom sending domain", description: domainDescriptions.remove }))
  )
  .middleware(Authentication)
  .pipe(problems.group(...API_ROUTE_ERRORS))
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Settings")
  .annotate(OpenApi.Description, settingsDescription)
