import {
  EventType,
  eventTypes,
  MAX_WEBHOOK_DESCRIPTION_LENGTH,
  MAX_WEBHOOK_URL_LENGTH,
  WebhookAttemptStatus,
  WebhookDeliveryId,
  WebhookDeliveryStatus,
  WebhookDescription,
  WebhookDisabledReason,
  WebhookEndpoint as DomainWebhookEndpoint,
  WebhookEndpointId,
  WebhookEndpointStatus,
  WebhookEventTypes,
  WebhookUrl
} from "@roster/domain"
import { Schema } from "effect"
import { limitParam } from "./pagination.js"
import { Count, IdInput, oneOf, strictInput, Timestamp, Uuid, withStatus } from "./wire-fields.js"

/**
 * Outgoing webhook endpoints and their deliveries as the reference form shows and accepts them.
 * The signing secret is shown only when made or regenerated.
 */

/** A timestamp whose meaning OpenAPI tells (a description beside `Timestamp`'s own JSON Schema would be lost). */
const TimestampOf = (description: string) =>
  Schema.String.annotations({
    jsonSchema: { type: "string", format: "date-time", description: `${description}; ISO 8601, UTC` }
  })

const EventTypeOutput = EventType.annotations({ description: "an event kind (`GET /api/v1/webhooks/event-types` lists them)" })

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

const signingSecret = Schema.String.annotations({
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

export const CreatedWebhookEndpoint = withStatus(WebhookEndpointWithSecret, 201, "WebhookEndpointWithSecret")

/** An endpoint after a new secret: the new secret, and until when the old one still signs beside it. */
export const RegeneratedWebhookEndpoint = Schema.Struct({
  ...WebhookEndpointWithSecret.fields,
  previous_secret_expires_at: TimestampOf(
    "until when the previous secret keeps signing every delivery beside the new one: 24 hours from now"
  )
}).annotations({ identifier: "RegeneratedWebhookEndpoint" })

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

export const WebhookEndpointList = Schema.Struct({
  items: Schema.Array(WebhookEndpoint).annotations({ description: "every endpoint of the organization, oldest first" }),
  total: Count("how many endpoints the organization has")
}).annotations({ identifier: "WebhookEndpointList" })

const UrlInput = WebhookUrl.annotations({
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

const EventsInput = (description: string) =>
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

const DescriptionInput = Schema.NullOr(
  WebhookDescription.annotations({ jsonSchema: { type: "string", maxLength: MAX_WEBHOOK_DESCRIPTION_LENGTH } })
).annotations({ description: `a note for people, at most ${MAX_WEBHOOK_DESCRIPTION_LENGTH} characters; null clears it` })

export const CreateWebhookRequest = Schema.Struct({
  url: UrlInput,
  events: Schema.optionalWith(EventsInput("the event kinds to deliver; left out, every kind"), { exact: true }),
  description: Schema.optionalWith(DescriptionInput, { exact: true })
}).annotations({ identifier: "CreateWebhookRequest", ...strictInput })

export const UpdateWebhookRequest = Schema.Struct({
  url: Schema.optionalWith(UrlInput, { exact: true }),
  events: Schema.optionalWith(EventsInput("the event kinds to deliver, replacing the current ones"), { exact: true }),
  description: Schema.optionalWith(DescriptionInput, { exact: true }),
  status: Schema.optionalWith(
    oneOf(
      WebhookEndpointStatus,
      "`disabled` pauses deliveries (they wait, pending); `active` resumes them, the waiting ones at once, and " +
        "gives the endpoint five more days of failures before it can be disabled again"
    ),
    { exact: true }
  )
}).annotations({
  identifier: "UpdateWebhookRequest",
  description: "fields left out stay as they are; the signing secret does not change (regenerate it for a new one)",
  ...strictInput
})

const webhookId = IdInput(WebhookEndpointId, "the webhook endpoint's id")

export const WebhookPath = Schema.Struct({ webhook_id: webhookId })

export const WebhookDeliveryPath = Schema.Struct({
  webhook_id: webhookId,
  delivery_id: IdInput(WebhookDeliveryId, "the delivery's id")
})

export const WebhookTestResult = Schema.Struct({
  success: Schema.Boolean.annotations({ description: "whether the endpoint answered 2xx" }),
  status_code: Schema.Int.annotations({
    jsonSchema: {
      type: "integer",
      minimum: 0,
      description: "the endpoint's HTTP status; 0 when no answer came (refused connection, time-out, refused target)"
    }
  }),
  response_time_ms: Count("how long the endpoint took to answer, or to fail, in milliseconds"),
  error: Schema.NullOr(Schema.String).annotations({ description: "what went wrong, in a line; null on success" })
}).annotations({ identifier: "WebhookTestResult" })

export const WebhookAttempt = Schema.Struct({
  attempt: Schema.Int.annotations({ jsonSchema: { type: "integer", minimum: 1, description: "1 for the first try" } }),
  attempted_at: Timestamp,
  status: WebhookAttemptStatus.annotations({ description: "`succeeded` when the endpoint answered 2xx" }),
  response_status_code: Schema.NullOr(Schema.Int).annotations({
    description: "the endpoint's HTTP status; null when no answer came"
  }),
  duration_ms: Count("how long the attempt took, in milliseconds"),
  error: Schema.NullOr(Schema.String).annotations({
    description: "what went wrong, in a line; null on success. Response bodies are never shown"
  }),
  next_attempt_at: Schema.NullOr(Timestamp).annotations({
    description: "when the next try was due after this one; null when none followed"
  })
}).annotations({ identifier: "WebhookAttempt", description: "one try at sending a delivery" })

export const WebhookDelivery = Schema.Struct({
  id: Uuid,
  webhook_id: Uuid,
  event_id: Uuid.annotations({ description: "the event's id, sent as `webhook-id` on every attempt" }),
  event_type: EventTypeOutput,
  status: WebhookDeliveryStatus.annotations({
    description: "`pending` while attempts remain, `succeeded` after a 2xx, `failed` after the last attempt or a 410"
  }),
  attempt_count: Count("how many attempts were made"),
  next_attempt_at: Schema.NullOr(Timestamp).annotations({
    description: "when the next attempt is due; null once the delivery succeeded or failed for good"
  }),
  created_at: Timestamp,
  updated_at: Timestamp,
  attempts: Schema.Array(WebhookAttempt).annotations({ description: "every attempt, oldest first" })
}).annotations({ identifier: "WebhookDelivery", description: "one event on its way to one endpoint" })

export const RetriedWebhookDelivery = withStatus(WebhookDelivery, 202, "WebhookDelivery")

export const WebhookDeliveryList = Schema.Struct({
  items: Schema.Array(WebhookDelivery),
  next_cursor: Schema.NullOr(Schema.String).annotations({
    description: "pass as `cursor` for the next page; null on the last page"
  })
}).annotations({ identifier: "WebhookDeliveryList" })

export const WebhookDeliveryListParams = Schema.Struct({
  cursor: Schema.optionalWith(
    Schema.String.annotations({ description: "`next_cursor` of the previous page" }),
    { exact: true }
  ),
  limit: limitParam,
  status: Schema.optionalWith(oneOf(WebhookDeliveryStatus, "only deliveries in this status"), { exact: true })
}).annotations(strictInput)

const Latency = Schema.Struct({
  p50: Schema.NullOr(Count("the median duration of an attempt, in milliseconds; null without attempts")),
  p95: Schema.NullOr(Count("the 95th percentile of the attempts' durations, in milliseconds; null without attempts"))
}).annotations({ identifier: "WebhookLatency" })

const SuccessRate = Schema.NullOr(
  Schema.Number.annotations({ jsonSchema: { type: "number", minimum: 0, maximum: 1 } })
).annotations({ description: "succeeded attempts over all attempts, 0 to 1; null without attempts" })

const attemptFigures = {
  attempts: Count("attempts made since `since`"),
  succeeded: Count("of which the endpoint answered 2xx"),
  failed: Count("of which failed"),
  success_rate: SuccessRate,
  latency_ms: Latency,
  last_success_at: Schema.NullOr(Timestamp).annotations({ description: "the last successful attempt since `since`" }),
  last_failure_at: Schema.NullOr(Timestamp).annotations({ description: "the last failed attempt since `since`" }),
  pending_deliveries: Count("deliveries waiting for an attempt now, whenever they were made")
}

const since = TimestampOf("the figures cover the attempts since this instant: the last 7 days")

export const WebhookStats = Schema.Struct({
  webhook_id: Uuid,
  since,
  ...attemptFigures
}).annotations({ identifier: "WebhookStats" })

export const GlobalWebhookStats = Schema.Struct({
  since,
  endpoints: Schema.Struct({
    total: Count("endpoints of the organization"),
    active: Count("of which active"),
    disabled: Count("of which disabled")
  }),
  ...attemptFigures
}).annotations({ identifier: "GlobalWebhookStats" })

export const WebhookEventTypeList = Schema.Struct({
  items: Schema.Array(
    Schema.Struct({
      type: EventTypeOutput,
      description: Schema.String.annotations({ description: "what happened when an event of this kind is sent" })
    }).annotations({ identifier: "WebhookEventType" })
  )
}).annotations({ identifier: "WebhookEventTypeList" })
