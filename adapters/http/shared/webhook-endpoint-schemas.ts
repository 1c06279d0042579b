import {
  EventType,
  eventTypes,
  MAX_WEBHOOK_DESCRIPTION_LENGTH,
  MAX_WEBHOOK_URL_LENGTH,
  WebhookDescription,
  WebhookDisabledReason,
  WebhookEndpoint as DomainWebhookEndpoint,
  WebhookEndpointStatus,
  WebhookEventTypes,
  WebhookUrl
} from "@roster/domain"
import { Schema } from "effect"
import { oneOf, strictInput, Timestamp, Uuid } from "./wire-fields.js"

/**
 * Outgoing webhook endpoints as every form shows and accepts them. The signing secret is shown
 * only when made or regenerated.
 */

/** A timestamp whose meaning OpenAPI tells (a description beside `Timestamp`'s own JSON Schema would be lost). */
export const TimestampOf = (description: string) =>
  Schema.String.annotations({
    jsonSchema: { type: "string", format: "date-time", description: `${description}; ISO 8601, UTC` }
  })

export const EventTypeOutput = EventType.annotations({ description: "an event kind (`GET /api/v1/webhooks/event-types` lists them)" })

export const WebhookEndpoint = Schema.Struct({
  id: Uuid,
  url: Schema.String.annotations({ description: "where deliveries are POSTed" }),
  events: Schema.Array(EventTypeOutput).annotations({ description: "the event kinds delivered to the endpoint" }),
  description: Schema.NullOr(Schema.String),
  status: WebhookEndpointStatus.annotations({
    description: "`active` endpoints receive deliveries; `disabled` ones keep theirs pending until resumed"
  }),
  disabled_reason: Schema.NullOr(WebhookDisabledReason).annotations({
    description: "why a disabled endpoint stopped: `by_user` (paused through the API), `gone` (it answered 410) or " +
      "`failing` (five days of failed attempts without a success); null while active"
  }),
  created_at: Timestamp,
  updated_at: Timestamp
}).annotations({ identifier: "WebhookEndpoint", description: "an outgoing webhook endpoint, without its signing secret" })

export const signingSecret = Schema.String.annotations({
  jsonSchema: {
    type: "string",
    pattern: "^whsec_[A-Za-z0-9+/]+=*$",
    description: "the Standard Webhooks secret (`whsec_` and base64) that signs every delivery; shown this once and " +
      "unrecoverable afterwards"
  }
})

/** An endpoint as made: the record and its signing secret, which is never shown again. */
export const WebhookEndpointWithSecret = Schema.Struct({
  ...WebhookEndpoint.fields,
  signing_secret: signingSecret
}).annotations({ identifier: "WebhookEndpointWithSecret" })
/** An endpoint as both forms show it. */
export const toWebhookEndpoint = (endpoint: DomainWebhookEndpoint): typeof WebhookEndpoint.Type => ({
  id: endpoint.id,
  url: endpoint.url,
  events: endpoint.events,
  description: endpoint.description,
  status: endpoint.status,
  disabled_reason: endpoint.disabledReason,
  created_at: endpoint.createdAt.toISOString(),
  updated_at: endpoint.updatedAt.toISOString()
})

/** An endpoint as made, in both forms: with its signing secret. */
export const toCreatedWebhookEndpoint = (endpoint: DomainWebhookEndpoint): typeof WebhookEndpointWithSecret.Type => ({
  ...toWebhookEndpoint(endpoint),
  signing_secret: endpoint.signingSecret
})

export const UrlInput = WebhookUrl.annotations({
  jsonSchema: {
    type: "string",
    format: "uri",
    maxLength: MAX_WEBHOOK_URL_LENGTH,
    description: "where deliveries are POSTed: an absolute http or https URL without a fragment, trimmed. Loopback, " +
      "private, link-local and cloud-metadata addresses (also as IPv4-mapped IPv6, decimal or octal forms, or behind " +
      "a host name that resolves to them) are 400 on `url` unless the operator allows private targets"
  }
})

/** At most this many entries in `events`: each kind once, and a little room. */
const MAX_EVENT_ENTRIES = 2 * eventTypes.length

export const EventsInput = (description: string) =>
  Schema.Array(Schema.Unknown).pipe(
    Schema.maxItems(MAX_EVENT_ENTRIES, { message: () => `must hold at most ${MAX_EVENT_ENTRIES} event kinds` }),
    Schema.compose(Schema.Array(oneOf(EventType, "an event kind")), { strict: false }),
    Schema.compose(WebhookEventTypes)
  ).annotations({
    jsonSchema: {
      type: "array",
      items: { type: "string", enum: [...eventTypes] },
      minItems: 1,
      maxItems: eventTypes.length,
      uniqueItems: true,
      description: `${description}: at least one, each once (\`GET /api/v1/webhooks/event-types\` lists them)`
    }
  })

export const DescriptionInput = Schema.NullOr(
  WebhookDescription.annotations({ jsonSchema: { type: "string", maxLength: MAX_WEBHOOK_DESCRIPTION_LENGTH } })
).annotations({ description: `a note for people, at most ${MAX_WEBHOOK_DESCRIPTION_LENGTH} characters; null clears it` })

export const CreateWebhookRequest = Schema.Struct({
  url: UrlInput,
  events: Schema.optionalWith(EventsInput("the event kinds to deliver; left out, every kind"), { exact: true }),
  description: Schema.optionalWith(DescriptionInput, { exact: true })
}).annotations({ identifier: "CreateWebhookRequest", ...strictInput })
