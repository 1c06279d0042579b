import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import {
  EmailSettings,
  SendingDomain,
  settingsDescription,
  UpdateEmailSettingsRequest
} from "../shared/email-settings-schemas.js"
import { OrganizationSettingsBody, UpdateOrganizationSettingsRequest } from "../shared/organization-settings-schemas.js"
import { settingsEndpoints as settings } from "../shared/settings-endpoints.js"
import { withStatus } from "../shared/wire-fields.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"
import { Authentication } from "./authentication.js"
import { problems } from "./problems.js"

export const SettingsGroup = HttpApiGroup.make("settings")
  .add(problems.declare(settings.getEmail).addSuccess(EmailSettings))
  .add(
    HttpApiEndpoint.put("updateEmail", "/settings/email")
      .setPayload(UpdateEmailSettingsRequest)
      .addSuccess(EmailSettings)
      .pipe(problems.describe(settings.updateEmail))
  )
  .add(problems.declare(settings.addDomain).addSuccess(withStatus(SendingDomain, 201, "AddedSendingDomain")))
  .add(problems.declare(settings.checkDomain).addSuccess(SendingDomain))
  .add(problems.declare(settings.removeDomain))
  .add(problems.declare(settings.getOrganization).addSuccess(OrganizationSettingsBody))
  .add(
    HttpApiEndpoint.put("updateOrganization", "/settings/organization")
      .setPayload(UpdateOrganizationSettingsRequest)
      .addSuccess(OrganizationSettingsBody)
      .pipe(problems.describe(settings.updateOrganization))
  )
  .middleware(Authentication)
  .pipe(problems.group(...API_ROUTE_ERRORS))
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Settings")
  .annotate(OpenApi.Description, settingsDescription)
