import type { OrganizationSettingsChanges, OrganizationSettingsView } from "@roster/application"
import { Schema } from "effect"
import { strictInput } from "./wire-fields.js"

/** The organization's own settings as every form shows and takes them. */

export const OrganizationSettingsBody = Schema.Struct({
  time_zone: Schema.String.annotations({
    description: "the IANA time zone the organization works in (`UTC` until set): a sequence made without a " +
      "`time_zone` of its own takes this one"
  })
}).annotations({ identifier: "OrganizationSettings" })

export const UpdateOrganizationSettingsRequest = Schema.Struct({
  time_zone: Schema.optionalWith(Schema.String, { exact: true }).annotations({
    description: "an IANA time zone, such as Europe/Berlin or America/New_York"
  })
}).annotations({ identifier: "UpdateOrganizationSettingsRequest", ...strictInput })

export const toOrganizationSettings = (view: OrganizationSettingsView): typeof OrganizationSettingsBody.Type => ({
  time_zone: view.timeZone
})

export const toOrganizationChanges = (payload: typeof UpdateOrganizationSettingsRequest.Type): OrganizationSettingsChanges => ({
  timeZone: payload.time_zone
})
