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
import { OverviewAuthentication } from "./authentication.js"
import { OVERVIEW_PREFIX } from "./paths.js"
import { Single } from "./schemas.js"
import { NoFields, optionalBody } from "../shared/action-body.js"

const EmailSettingsData = Single(EmailSettings, "EmailSettingsData")
const SendingDomainData = Single(SendingDomain, "SendingDomainData")

export const SettingsGroup = HttpApiGroup.make("settings")
  .add(
    HttpApiEndpoint.get("getEmail", "/settings/email")
      .addSuccess(EmailSettingsData)
      .annotateContext(OpenApi.annotations({
        summary: "Get the email settings",
        description: "The sender settings and the From header they make. Scope `*`."
      }))
  )
  .add(
    HttpApiEndpoint.patch("updateEmail", "/settings/email")
      .setPayload(UpdateEmailSettingsRequest)
      .addSuccess(EmailSettingsData)
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
      .addSuccess(withStatus(SendingDomainData, 201, "AddedSendingDomainData"))
      .annotateContext(OpenApi.annotations({ summary: "Add a custom sending domain", description: domainDescriptions.add }))
  )
  .add(
    HttpApiEndpoint.get("checkDomain", "/settings/email/domain")
      .addSuccess(SendingDomainData)
      .annotateContext(OpenApi.annotations({ summary: "Check the custom sending domain", description: domainDescriptions.check }))
  )
  .add(
    HttpApiEndpoint.del("removeDomain", "/settings/email/domain")
      .setPayload(NoFields)
      .annotate(OpenApi.Transform, optionalBody)
      .annotateContext(OpenApi.annotations({ summary: "Remove the custom sending domain", description: domainDescriptions.remove }))
  )
  .middleware(OverviewAuthentication)
  .prefix(OVERVIEW_PREFIX)
  .annotate(OpenApi.Title, "Settings")
  .annotate(OpenApi.Description, settingsDescription)
