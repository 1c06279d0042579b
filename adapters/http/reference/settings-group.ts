import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { EmailSettings, settingsDescription, UpdateEmailSettingsRequest } from "../shared/email-settings-schemas.js"
import { API_ROUTE_ERRORS, BODY_ERRORS } from "../shared/wire-errors.js"
import { Authentication } from "./authentication.js"
import { problems } from "./problems.js"

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
        description: "Sets `from_name` (null goes back to the organization's name); fields left out stay. A " +
          "`from_address` is 400 `validation_error` until a custom domain is verified. Scope `*`."
      }))
  )
  .middleware(Authentication)
  .pipe(problems.group(...API_ROUTE_ERRORS))
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Settings")
  .annotate(OpenApi.Description, settingsDescription)
