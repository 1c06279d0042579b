import type { EmailToSend, MessageRecord } from "@roster/application"
import {
  DEFAULT_MESSAGE_KIND,
  MAX_TEMPLATE_LENGTH,
  MessageEventType,
  MessageKind,
  MessageStatus,
  SubscriberId,
  TemplateId
} from "@roster/domain"
import { Schema } from "effect"
import { Count, EmailInput, IdInput, oneOf, strictInput, Timestamp, Uuid, withStatus } from "./wire-fields.js"

/** Single emails as every form accepts and shows them. */

/** Caller data a template reads as `data`: a JSON object, at most 64 KiB as JSON. */
export const MAX_EMAIL_DATA_BYTES = 64 * 1024

export const EmailData = Schema.Record({ key: Schema.String, value: Schema.Unknown }).pipe(
  Schema.filter((data) => {
    if (Object.prototype.hasOwnProperty.call(data, "__proto__")) return "keys must not be __proto__"
    const json = JSON.stringify(data)
    if (json === undefined || Buffer.byteLength(json) > MAX_EMAIL_DATA_BYTES) {
      return `must be at most ${MAX_EMAIL_DATA_BYTES / 1024} KiB as JSON`
    }
    return true
  })
).annotations({
  jsonSchema: {
    type: "object",
    additionalProperties: true,
    description: "values the template reads as `data` (`{{ data.order_id }}`); any JSON, at most 64 KiB"
  }
})

const TemplatePart = (name: string) =>
  Schema.String.pipe(Schema.maxLength(MAX_TEMPLATE_LENGTH, {
    message: () => `must be at most ${MAX_TEMPLATE_LENGTH} characters`
  })).annotations({ description: `the ${name} in Liquid, rendered for the recipient` })

export const SendEmailRequest = Schema.Struct({
  to: Schema.optionalWith(EmailInput("the recipient's address: a subscriber of the organization"), { exact: true }),
  subscriber_id: Schema.optionalWith(IdInput(SubscriberId, "the recipient, by subscriber id"), { exact: true }),
  template_id: Schema.optionalWith(IdInput(TemplateId, "the template to send"), { exact: true }),
  subject: Schema.optionalWith(
    TemplatePart("subject line").pipe(Schema.maxLength(1_000, { message: () => "must be at most 1000 characters" })),
    { exact: true }
  ),
  html: Schema.optionalWith(Schema.NullOr(TemplatePart("HTML body")), { exact: true }),
  text: Schema.optionalWith(Schema.NullOr(TemplatePart("text body")), { exact: true }),
  data: Schema.optionalWith(EmailData, { exact: true }),
  kind: Schema.optionalWith(
    oneOf(
      MessageKind,
      "`marketing` (the default: carries List-Unsubscribe; only active subscribers receive it) or `transactional` " +
        "(answers something the subscriber did, said explicitly; reaches unsubscribed subscribers too)"
    ).annotations({ default: DEFAULT_MESSAGE_KIND }),
    { exact: true }
  )
}).annotations({ identifier: "SendEmailRequest", ...strictInput })

/** A send request as the use case reads it. */
export const toEmailToSend = (payload: typeof SendEmailRequest.Type): EmailToSend => ({
  to: payload.to,
  subscriberId: payload.subscriber_id,
  templateId: payload.template_id,
  subject: payload.subject,
  html: payload.html,
  text: payload.text,
  data: payload.data,
  kind: payload.kind
})

export const MessageHistoryEntry = Schema.Struct({
  type: MessageEventType.annotations({ description: "what happened" }),
  at: Timestamp,
  detail: Schema.NullOr(Schema.String).annotations({ description: "why, where there is more to say" })
}).annotations({ identifier: "EmailEvent" })

export const EmailMessage = Schema.Struct({
  id: Uuid,
  subscriber_id: Uuid,
  template_id: Schema.NullOr(Uuid),
  campaign_id: Schema.NullOr(Uuid).annotations({ description: "the campaign it is part of; null for a single send" }),
  kind: MessageKind,
  to: Schema.String,
  from: Schema.String.annotations({ description: "the From header it carries" }),
  subject: Schema.String,
  html: Schema.NullOr(Schema.String),
  text: Schema.NullOr(Schema.String),
  headers: Schema.Record({ key: Schema.String, value: Schema.String }).annotations({
    description: "headers beyond the usual ones: `List-Unsubscribe` and `List-Unsubscribe-Post` on marketing email"
  }),
  status: MessageStatus.annotations({
    description: "`queued` until the provider takes it, then `sent`, `delivered`, `opened`, `clicked`; or `bounced`, " +
      "`complained`, `failed`; `suppressed` (the subscriber must not receive it) and `sandboxed` (a test key's) " +
      "never leave"
  }),
  provider_message_id: Schema.NullOr(Schema.String).annotations({ description: "the provider's id, once it took it" }),
  error: Schema.NullOr(Schema.String).annotations({ description: "why the last attempt failed or why it was withheld" }),
  attempts: Count("attempts to hand it to the provider"),
  created_at: Timestamp,
  updated_at: Timestamp,
  history: Schema.Array(MessageHistoryEntry).annotations({ description: "what happened to it, oldest first" })
}).annotations({ identifier: "Email" })

export const AcceptedEmail = withStatus(EmailMessage, 202, "AcceptedEmail")

export const toEmailMessage = ({ history, message }: MessageRecord): typeof EmailMessage.Type => ({
  id: message.id,
  subscriber_id: message.subscriberId,
  template_id: message.templateId,
  campaign_id: message.campaignId,
  kind: message.kind,
  to: message.to,
  from: message.from,
  subject: message.subject,
  html: message.html,
  text: message.text,
  headers: message.headers,
  status: message.status,
  provider_message_id: message.providerId,
  error: message.error,
  attempts: message.attemptCount,
  created_at: message.createdAt.toISOString(),
  updated_at: message.updatedAt.toISOString(),
  history: history.map((event) => ({ type: event.type, at: event.occurredAt.toISOString(), detail: event.detail }))
})

export const messageFilters = {
  subscriber_id: Schema.optionalWith(IdInput(SubscriberId, "only emails to this subscriber"), { exact: true }),
  status: Schema.optionalWith(oneOf(MessageStatus, "only emails in this status"), { exact: true })
}

/** How sending works, told once for both forms. */
export const sendingRules = `An email goes to one subscriber of the organization, named by \`to\` (their address) or
\`subscriber_id\`, with a template (\`template_id\`) or its own \`subject\` and \`html\` and/or \`text\`, each in Liquid with the
variables \`subscriber\` (email, first_name, last_name, status, metadata, tags), \`organization.name\`,
\`unsubscribe_url\`, \`preferences_url\` and the request's \`data\`. It is rendered when accepted and answered 202 as
\`queued\`; a worker hands it to the provider within about a second and the record follows what the provider reports.

Kinds: \`marketing\` unless \`kind\` says \`transactional\`. Bounced and complained subscribers receive nothing (the email is
recorded \`suppressed\`); unsubscribed subscribers receive \`transactional\` email only; \`marketing\` email carries \`List-Unsubscribe\` (a one-click URL and, where the
operator set one, a \`mailto:\`) and \`List-Unsubscribe-Post: List-Unsubscribe=One-Click\`. Emails sent with a \`svc_test_\`
key are recorded \`sandboxed\`: they never reach the provider and never count against the plan. Each queued email counts
against the plan's monthly email limit when accepted; past it, 402 \`limit_exceeded\`. An \`Idempotency-Key\` sends once.`
