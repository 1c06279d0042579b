import { TEST_EVENT_TYPE, WebhookAttemptStatus, WebhookDeliveryId, WebhookDeliveryStatus, WebhookEndpointId, WebhookEndpointStatus } from "@roster/domain"
import { Schema } from "effect"
import { limitParam } from "./pagination.js"
import { Count, IdInput, oneOf, strictInput, Timestamp, Uuid, withStatus } from "../shared/wire-fields.js"
import {
  DescriptionInput,
  EventsInput,
  EventTypeOutput,
  TimestampOf,
  UrlInput,
  WebhookEndpoint,
  WebhookEndpointWithSecret
} from "../shared/webhook-endpoint-schemas.js"

/**
 * Outgoing webhook endpoints and their deliveries as the reference form shows and accepts them,
 * beyond the endpoint itself, which every form shows alike.
 */


export const CreatedWebhookEndpoint = withStatus(WebhookEndpointWithSecret, 201, "WebhookEndpointWithSecret")

/** An endpoint after a new secret: the new secret, and until when the old one still signs beside it. */
export const RegeneratedWebhookEndpoint = Schema.Struct({
  ...WebhookEndpointWithSecret.fields,
  previous_secret_expires_at: TimestampOf(
    "until when the previous secret keeps signing every delivery beside the new one: 24 hours from now"
  )
}).annotations({ identifier: "RegeneratedWebhookEndpoint" })


export const WebhookEndpointList = Schema.Struct({
  items: Schema.Array(WebhookEndpoint).annotations({ description: "every endpoint of the organization, oldest first" }),
  total: Count("how many endpoints the organization has")
}).annotations({ identifier: "WebhookEndpointList" })


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
  event_type: Schema.Union(EventTypeOutput, Schema.Literal(TEST_EVENT_TYPE)).annotations({
    description: "the event kind, or `webhook.test` for a test delivery"
  }),
  test: Schema.optional(Schema.Boolean).annotations({
    description: "true when the delivery records a test message (`POST /webhooks/{webhook_id}/test`); absent or " +
      "false for an event's delivery. A test delivery is sent by the test and by its retry only, at once, " +
      "never by the retry schedule, and its failures never disable the endpoint"
  }),
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
