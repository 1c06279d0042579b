import type { SenderSettingsView } from "@roster/application"
import { FromName, MAX_FROM_NAME_LENGTH } from "@roster/domain"
import { Schema } from "effect"
import { strictInput } from "./wire-fields.js"

/** Sender settings as every form shows and takes them (SPEC.md §2, email settings). */

export const EmailSettings = Schema.Struct({
  from_name: Schema.NullOr(Schema.String).annotations({
    description: "the display name of every From header; null: the organization's name"
  }),
  from_address: Schema.NullOr(Schema.String).annotations({
    description: "the organization's own sending address; null until a custom domain is verified"
  }),
  effective_from: Schema.String.annotations({ description: "the From header every email of the organization carries" }),
  is_custom_domain: Schema.Boolean,
  custom_domain: Schema.NullOr(Schema.String),
  custom_domain_status: Schema.NullOr(Schema.String),
  can_add_custom_domain: Schema.Boolean.annotations({ description: "whether the plan allows a custom sending domain" })
}).annotations({ identifier: "EmailSettings" })

export const UpdateEmailSettingsRequest = Schema.Struct({
  from_name: Schema.optionalWith(
    Schema.NullOr(FromName.annotations({
      jsonSchema: { type: "string", minLength: 1, maxLength: MAX_FROM_NAME_LENGTH, description: "one line; trimmed" }
    })),
    { exact: true }
  ),
  from_address: Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true }).annotations({
    description: "refused (400) until the organization has a verified custom domain; null is accepted"
  })
}).annotations({ identifier: "UpdateEmailSettingsRequest", ...strictInput })

export const toEmailSettings = (view: SenderSettingsView): typeof EmailSettings.Type => ({
  from_name: view.fromName,
  from_address: view.fromAddress,
  effective_from: view.effectiveFrom,
  is_custom_domain: false,
  custom_domain: null,
  custom_domain_status: null,
  can_add_custom_domain: view.canAddCustomDomain
})

export const toSenderChanges = (payload: typeof UpdateEmailSettingsRequest.Type) => ({
  fromName: payload.from_name,
  fromAddress: payload.from_address
})

export const settingsDescription = "How the organization's email is sent. `from_name` is the display name of every " +
  "From header, on every plan (the organization's name while unset); a sending address of its own (`from_address`) " +
  "needs a verified custom domain, which the top plan will be able to add. Owner only: scope `*`."
