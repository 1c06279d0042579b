import type { SenderSettingsView } from "@roster/application"
import { FromName, MAX_FROM_NAME_LENGTH, type SendingDomain as DomainSendingDomain } from "@roster/domain"
import { Schema } from "effect"
import { strictInput, Timestamp } from "./wire-fields.js"

/** Sender settings as every form shows and takes them (SPEC.md §2, email settings). */

export const EmailSettings = Schema.Struct({
  from_name: Schema.NullOr(Schema.String).annotations({
    description: "the display name of every From header; null: the organization's name"
  }),
  from_address: Schema.NullOr(Schema.String).annotations({
    description: "the organization's own sending address, on its verified custom domain; null: the service's address"
  }),
  effective_from: Schema.String.annotations({ description: "the From header every email of the organization carries" }),
  is_custom_domain: Schema.Boolean.annotations({
    description: "whether email goes out from the organization's own address on its verified custom domain"
  }),
  custom_domain: Schema.NullOr(Schema.String).annotations({ description: "the custom sending domain, if one was added" }),
  custom_domain_status: Schema.NullOr(Schema.Literal("pending", "verified", "failed")).annotations({
    description: "where the custom domain stands, as last checked; null without one"
  }),
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
    description: "an address on the organization's verified custom domain, or the service's own address; null goes " +
      "back to the service's address"
  })
}).annotations({ identifier: "UpdateEmailSettingsRequest", ...strictInput })

export const toEmailSettings = (view: SenderSettingsView): typeof EmailSettings.Type => ({
  from_name: view.fromName,
  from_address: view.fromAddress,
  effective_from: view.effectiveFrom,
  is_custom_domain: view.isCustomDomain,
  custom_domain: view.customDomain?.name ?? null,
  custom_domain_status: view.customDomain?.status ?? null,
  can_add_custom_domain: view.canAddCustomDomain
})

export const toSenderChanges = (payload: typeof UpdateEmailSettingsRequest.Type) => ({
  fromName: payload.from_name,
  fromAddress: payload.from_address
})

export const settingsDescription = "How the organization's email is sent. `from_name` is the display name of every " +
  "From header, on every plan (the organization's name while unset). On the enterprise plan the organization adds a " +
  "custom sending domain, adds the DNS records the email provider gives to its DNS host, and once the domain is " +
  "verified sends from an address of its own on it (`from_address`). `/settings/organization` holds the " +
  "organization's own time zone, which sequences made without one take. Owner only: scope `*`."

/** One DNS record to add at the domain's DNS host, as the email provider gives it. */
export const DnsRecord = Schema.Struct({
  record: Schema.String.annotations({ description: "what the record is for: `SPF`, `DKIM`, `Tracking`..." }),
  name: Schema.String.annotations({ description: "the host, relative to the domain (`send`, `resend._domainkey`)" }),
  type: Schema.String.annotations({ description: "`MX`, `TXT`, `CNAME`..." }),
  value: Schema.String,
  ttl: Schema.String.annotations({ description: "`Auto`, or seconds" }),
  priority: Schema.NullOr(Schema.Number).annotations({ description: "MX records only" }),
  status: Schema.String.annotations({ description: "whether the provider has found it: `not_started`, `pending`, `verified`, `failed`..." })
}).annotations({ identifier: "DnsRecord" })

export const SendingDomain = Schema.Struct({
  domain: Schema.String,
  status: Schema.Literal("pending", "verified", "failed").annotations({
    description: "`pending` until the provider finds the DNS records, then `verified`; `failed` when it gave up looking"
  }),
  dns_records: Schema.Array(DnsRecord),
  created_at: Timestamp,
  checked_at: Schema.NullOr(Timestamp).annotations({ description: "when the provider was last asked" }),
  verified_at: Schema.NullOr(Timestamp)
}).annotations({ identifier: "SendingDomain" })

export const AddSendingDomainRequest = Schema.Struct({
  domain: Schema.String.annotations({
    description: "a host name of yours, such as news.example.com (an internationalized name in its xn-- form)"
  })
}).annotations({ identifier: "AddSendingDomainRequest", ...strictInput })

const iso = (date: Date | null): string | null => date === null ? null : date.toISOString()

export const toSendingDomain = (domain: DomainSendingDomain): typeof SendingDomain.Type => ({
  domain: domain.name,
  status: domain.status,
  dns_records: domain.records.map((r) => ({
    record: r.record,
    name: r.name,
    type: r.type,
    value: r.value,
    ttl: r.ttl,
    priority: r.priority,
    status: r.status
  })),
  created_at: domain.createdAt.toISOString(),
  checked_at: iso(domain.checkedAt),
  verified_at: iso(domain.verifiedAt)
})
