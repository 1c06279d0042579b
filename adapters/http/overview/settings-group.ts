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
import { OverviewAuthentication } from "./authentication.js"
import { envelopes } from "./errors.js"
import { OVERVIEW_PREFIX } from "./paths.js"
import { Single } from "./schemas.js"

const EmailSettingsData = Single(EmailSettings, "EmailSettingsData")
const SendingDomainData = Single(SendingDomain, "SendingDomainData")
const OrganizationSettingsData = Single(OrganizationSettingsBody, "OrganizationSettingsData")

export const SettingsGroup = HttpApiGroup.make("settings")
  .add(envelopes.declare(settings.getEmail).addSuccess(EmailSettingsData))
  .add(
    HttpApiEndpoint.patch("updateEmail", "/settings/email")
      .setPayload(UpdateEmailSettingsRequest)
      .addSuccess(EmailSettingsData)
      .pipe(envelopes.describe(settings.updateEmail))
  )
  .add(envelopes.declare(settings.addDomain).addSuccess(withStatus(SendingDomainData, 201, "AddedSendingDomainData")))
  .add(envelopes.declare(settings.checkDomain).addSuccess(SendingDomainData))
  .add(envelopes.declare(settings.removeDomain))
  .add(envelopes.declare(settings.getOrganization).addSuccess(OrganizationSettingsData))
  .add(
    HttpApiEndpoint.patch("updateOrganization", "/settings/organization")
      .setPayload(UpdateOrganizationSettingsRequest)
      .addSuccess(OrganizationSettingsData)
      .pipe(envelopes.describe(settings.updateOrganization))
  )
  .middleware(OverviewAuthentication)
  .pipe(envelopes.group(...API_ROUTE_ERRORS))
  .prefix(OVERVIEW_PREFIX)
  .annotate(OpenApi.Title, "Settings")
  .annotate(OpenApi.Description, settingsDescription)
