import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { EmailSettings, settingsDescription, UpdateEmailSettingsRequest } from "../shared/email-settings-schemas.js"
import { OverviewAuthentication } from "./authentication.js"
import { OVERVIEW_PREFIX } from "./paths.js"
import { Single } from "./schemas.js"

const EmailSettingsData = Single(EmailSettings, "EmailSettingsData")

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
        description: "Sets `from_name` (null goes back to the organization's name); fields left out stay. A " +
          "`from_address` is 400 `validation_error` until a custom domain is verified. Scope `*`."
      }))
  )
  .middleware(OverviewAuthentication)
  .prefix(OVERVIEW_PREFIX)
  .annotate(OpenApi.Title, "Settings")
  .annotate(OpenApi.Description, settingsDescription)
