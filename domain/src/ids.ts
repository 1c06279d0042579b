import { Schema } from "effect"

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** A UUID in its canonical lower-case text form. */
const Uuid = Schema.String.pipe(
  Schema.filter((s) => uuidPattern.test(s) || "must be a UUID"),
  Schema.annotations({ format: "uuid", description: "a UUID", examples: ["0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"] })
)

/** Accepts any letter case and keeps the lower-case form, so ids compare by value. */
const UuidText = Schema.transform(Uuid, Schema.String, {
  strict: true,
  decode: (s) => s.toLowerCase(),
  encode: (s) => s
})

const brandedId = <B extends string>(brand: B) => UuidText.pipe(Schema.brand(brand))

export const OrganizationId = brandedId("OrganizationId")
export type OrganizationId = typeof OrganizationId.Type

export const UserId = brandedId("UserId")
export type UserId = typeof UserId.Type

export const SubscriberId = brandedId("SubscriberId")
export type SubscriberId = typeof SubscriberId.Type

export const TagId = brandedId("TagId")
export type TagId = typeof TagId.Type

export const ApiKeyId = brandedId("ApiKeyId")
export type ApiKeyId = typeof ApiKeyId.Type

export const EventId = brandedId("EventId")
export type EventId = typeof EventId.Type

export const isUuid = (s: string): boolean => uuidPattern.test(s)

export const WebhookEndpointId = brandedId("WebhookEndpointId")
export type WebhookEndpointId = typeof WebhookEndpointId.Type

export const WebhookDeliveryId = brandedId("WebhookDeliveryId")
export type WebhookDeliveryId = typeof WebhookDeliveryId.Type

export const TemplateId = brandedId("TemplateId")
export type TemplateId = typeof TemplateId.Type

export const FormId = brandedId("FormId")
export type FormId = typeof FormId.Type

export const SignUpId = brandedId("SignUpId")
export type SignUpId = typeof SignUpId.Type

export const ConsentId = brandedId("ConsentId")
export type ConsentId = typeof ConsentId.Type

export const MessageId = brandedId("MessageId")
export type MessageId = typeof MessageId.Type

export const NoteId = brandedId("NoteId")
export type NoteId = typeof NoteId.Type

export const CampaignId = brandedId("CampaignId")
export type CampaignId = typeof CampaignId.Type

export const TriggerId = brandedId("TriggerId")
export type TriggerId = typeof TriggerId.Type

export const ImportId = brandedId("ImportId")
export type ImportId = typeof ImportId.Type

export const SegmentId = brandedId("SegmentId")
export type SegmentId = typeof SegmentId.Type

export const SequenceId = brandedId("SequenceId")
export type SequenceId = typeof SequenceId.Type

export const EnrollmentId = brandedId("EnrollmentId")
export type EnrollmentId = typeof EnrollmentId.Type
