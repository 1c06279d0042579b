import { Encoding, Option, Schema } from "effect"
import { type DomainEvent, EventType, eventTypes } from "./events.js"
import { EventId, OrganizationId, WebhookDeliveryId, WebhookEndpointId } from "./ids.js"
import { instantText } from "./instant.js"
import { isStorableText, UNSTORABLE_TEXT, longerThan } from "./text.js"

/**
 * Outgoing webhooks follow the Standard Webhooks scheme: each message carries `webhook-id`,
 * `webhook-timestamp` and `webhook-signature` (`v1,<base64 HMAC-SHA256 of id.timestamp.body>`),
 * signed with a `whsec_<base64>` secret.
 */

// ---------------------------------------------------------------------------------------------
// Endpoints

export const MAX_WEBHOOK_URL_LENGTH = 2_048
export const MAX_WEBHOOK_DESCRIPTION_LENGTH = 500

/** A URL as typed: http or https, absolute, without a fragment. Whether its host may be called is the transport's call. */
export const WebhookUrl = Schema.Trim.pipe(
  Schema.filter((s) => {
    if (s.length === 0) return "must not be empty"
    if (s.length > MAX_WEBHOOK_URL_LENGTH) return `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`
    let url: URL
    try {
      url = new URL(s)
    } catch {
      return "must be an absolute URL such as https://example.com/webhooks"
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") return "must use http or https"
    if (url.hash !== "") return "must not have a fragment (#...)"
    return true
  }),
  Schema.annotations({
    description: "where deliveries are POSTed: an absolute http or https URL",
    examples: ["https://example.com/webhooks/roster"]
  })
)

export const WebhookDescription = Schema.String.pipe(
  Schema.filter((s) => {
    if (longerThan(s, MAX_WEBHOOK_DESCRIPTION_LENGTH)) {
      return `must be at most ${MAX_WEBHOOK_DESCRIPTION_LENGTH} characters`
    }
    if (!isStorableText(s)) return UNSTORABLE_TEXT
    return true
  })
)

/** The kinds an endpoint hears: at least one, each once. Left out on create, it hears every kind. */
export const WebhookEventTypes = Schema.Array(EventType).pipe(
  Schema.filter((kinds) => {
    if (kinds.length === 0) return "must list at least one event kind"
    if (new Set(kinds).size !== kinds.length) return "must not list an event kind twice"
    return true
  })
)

export const allEventTypes: ReadonlyArray<EventType> = eventTypes

export const WebhookEndpointStatus = Schema.Literal("active", "disabled")
export type WebhookEndpointStatus = typeof WebhookEndpointStatus.Type

/** Why an endpoint stopped receiving: its owner paused it, it answered 410 Gone, or it failed for five days. */
export const WebhookDisabledReason = Schema.Literal("by_user", "gone", "failing")
export type WebhookDisabledReason = typeof WebhookDisabledReason.Type

export class WebhookEndpoint extends Schema.Class<WebhookEndpoint>("WebhookEndpoint")({
  id: WebhookEndpointId,
  organizationId: OrganizationId,
  url: Schema.String,
  events: Schema.Array(EventType),
  description: Schema.NullOr(Schema.String),
  status: WebhookEndpointStatus,
  disabledReason: Schema.NullOr(WebhookDisabledReason),
  signingSecret: Schema.String,
  /** The secret before the last regeneration; it keeps signing beside the new one until it expires. */
  previousSigningSecret: Schema.NullOr(Schema.String),
  previousSigningSecretExpiresAt: Schema.NullOr(Schema.DateFromSelf),
  /** When the current run of failures began; null while the endpoint answers. */
  failingSince: Schema.NullOr(Schema.DateFromSelf),
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
}) {
  /** Whether deliveries of this event go to this endpoint. */
  hears(event: { readonly organizationId: OrganizationId; readonly type: EventType }): boolean {
    return this.status === "active" && this.organizationId === event.organizationId && this.events.includes(event.type)
  }
}

export const SIGNING_SECRET_PREFIX = "whsec_"
/** Random bytes behind a signing secret (Standard Webhooks asks for 24 to 64). */
export const SIGNING_SECRET_BYTES = 32
/** How long a regenerated-away secret keeps signing beside the new one. */
export const PREVIOUS_SECRET_GRACE_MS = 24 * 60 * 60 * 1000

export const signingSecretFromBytes = (bytes: Uint8Array): string =>
  SIGNING_SECRET_PREFIX + Encoding.encodeBase64(bytes)

/** The secrets that sign a message sent at `at`: the current one, and the previous one within its grace. */
export const activeSigningSecrets = (endpoint: WebhookEndpoint, at: Date): ReadonlyArray<string> =>
  endpoint.previousSigningSecret !== null && endpoint.previousSigningSecretExpiresAt !== null &&
    endpoint.previousSigningSecretExpiresAt.getTime() > at.getTime()
    ? [endpoint.signingSecret, endpoint.previousSigningSecret]
    : [endpoint.signingSecret]

/** The endpoint with a new secret; the old one signs alongside for {@link PREVIOUS_SECRET_GRACE_MS}. */
export const withNewSigningSecret = (endpoint: WebhookEndpoint, secret: string, at: Date): WebhookEndpoint =>
  new WebhookEndpoint({
    ...endpoint,
    signingSecret: secret,
    previousSigningSecret: endpoint.signingSecret,
    previousSigningSecretExpiresAt: new Date(at.getTime() + PREVIOUS_SECRET_GRACE_MS),
    updatedAt: at
  })

// ---------------------------------------------------------------------------------------------
// Messages

/** The body every receiver gets: `{id, type, created_at, organization_id, data}`, as exact JSON text. */
export const webhookPayload = (event: DomainEvent): string =>
  JSON.stringify({
    id: event.id,
    type: event.type,
    created_at: instantText(event.occurredAt),
    organization_id: event.organizationId,
    data: event.data
  })

/** The kind of the message that `POST /webhooks/{id}/test` sends; endpoints cannot subscribe to it. */
export const TEST_EVENT_TYPE = "webhook.test"

// ---------------------------------------------------------------------------------------------
// Deliveries and their attempts

/** The wait on an answer, connection included. */
export const DELIVERY_TIMEOUT_MS = 10_000

/**
 * Waits before each retry, after the first attempt went out at once: 5 s, 5 min, 30 min, 2 h, 5 h,
 * 10 h, 10 h. Eight attempts in all, spread over about 28 hours.
 */
export const RETRY_DELAYS_MS: ReadonlyArray<number> = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000
]
export const MAX_DELIVERY_ATTEMPTS = RETRY_DELAYS_MS.length + 1

/** Each wait is stretched or shrunk by up to this fraction, so retries of many messages spread out. */
export const RETRY_JITTER = 0.1

/** The longest a `Retry-After` may push the next attempt back. */
export const MAX_RETRY_AFTER_MS = 24 * 3_600_000

/** How much of an answer's body an attempt keeps. */
export const MAX_RESPONSE_EXCERPT_LENGTH = 1_000

/** The start of an answer's body as an attempt keeps it: bounded, and storable as text. */
export const responseExcerptOf = (body: string | undefined): string | null =>
  body === undefined ? null : body.replaceAll("\u0000", "").slice(0, MAX_RESPONSE_EXCERPT_LENGTH)

/** Finished deliveries (with their attempts) and the dispatched events behind them are kept this long. */
export const WEBHOOK_HISTORY_RETENTION_MS = 30 * 24 * 3_600_000

/** An endpoint that has failed without a success for this long is disabled. */
export const FAILING_ENDPOINT_DISABLE_AFTER_MS = 5 * 24 * 3_600_000

export const WebhookDeliveryStatus = Schema.Literal("pending", "succeeded", "failed")
export type WebhookDeliveryStatus = typeof WebhookDeliveryStatus.Type

export const WebhookAttemptStatus = Schema.Literal("succeeded", "failed")
export type WebhookAttemptStatus = typeof WebhookAttemptStatus.Type

/** One try at sending a delivery. */
export class WebhookAttempt extends Schema.Class<WebhookAttempt>("WebhookAttempt")({
  /** 1 for the first try. */
  number: Schema.Int,
  attemptedAt: Schema.DateFromSelf,
  status: WebhookAttemptStatus,
  /** The receiver's HTTP status; null when no answer came (time-out, refused connection, refused target). */
  responseStatus: Schema.NullOr(Schema.Int),
  durationMs: Schema.Int,
  /** What went wrong, in a line; null on success. */
  error: Schema.NullOr(Schema.String),
  /**
   * The start of the answer's body (at most {@link MAX_RESPONSE_EXCERPT_LENGTH} characters, NUL
   * characters dropped), for the delivery log, which shows it escaped; null without an answer.
   */
  responseExcerpt: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  /** When the next try is due; null when this was the last one. */
  nextAttemptAt: Schema.NullOr(Schema.DateFromSelf)
}) {}

/** What a delivery carries: an event kind, or the test message. */
export const DeliveryEventType = Schema.Union(EventType, Schema.Literal(TEST_EVENT_TYPE))
export type DeliveryEventType = typeof DeliveryEventType.Type

/**
 * One event on its way to one endpoint. Every attempt carries the event's id as `webhook-id`.
 *
 * A test delivery records `POST /webhooks/{id}/test`: its `eventId` is the test message's id, its
 * `testBody` the message as sent, and its attempts are made by the test operation (again by
 * redelivering it), never by a worker; its status is never `pending` and its failures never count
 * towards disabling the endpoint.
 */
export class WebhookDelivery extends Schema.Class<WebhookDelivery>("WebhookDelivery")({
  id: WebhookDeliveryId,
  organizationId: OrganizationId,
  endpointId: WebhookEndpointId,
  eventId: EventId,
  eventType: DeliveryEventType,
  status: WebhookDeliveryStatus,
  attemptCount: Schema.Int,
  /** When the next try is due; null once the delivery succeeded or failed for good. */
  nextAttemptAt: Schema.NullOr(Schema.DateFromSelf),
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf,
  /** Whether this records a test message rather than an event. */
  test: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  /** The body a test delivery sent; null for an event's delivery, whose body is the event's payload. */
  testBody: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null })
}) {}

/** A delivery with its attempts, oldest first. */
export interface WebhookDeliveryHistory {
  readonly delivery: WebhookDelivery
  readonly attempts: ReadonlyArray<WebhookAttempt>
}

/** What came of sending a message. */
export type SendResult =
  | {
    readonly _tag: "Answered"
    readonly status: number
    readonly durationMs: number
    /** From `Retry-After`, as a wait in milliseconds, when the receiver gave one. */
    readonly retryAfterMs: Option.Option<number>
    /** The start of the answer's body as text, as much as was read; none when the sender did not read it. */
    readonly body?: string | undefined
  }
  | {
    readonly _tag: "NoAnswer"
    /** What went wrong, in a line: time-out, refused connection, a target the guard refused. */
    readonly error: string
    readonly durationMs: number
  }

export const isSuccessfulSend = (result: SendResult): boolean =>
  result._tag === "Answered" && result.status >= 200 && result.status < 300

/** What an attempt's result means for the delivery and its endpoint. */
export interface AttemptVerdict {
  readonly attempt: WebhookAttempt
  readonly deliveryStatus: WebhookDeliveryStatus
  readonly nextAttemptAt: Date | null
  /** What happens to the endpoint: healthy again, one more failure, or gone (410). */
  readonly endpoint: "answered" | "failed" | "gone"
}

const answerError = (status: number): string => {
  if (status >= 300 && status < 400) return `answered ${status}; redirects are not followed`
  if (status === 410) return "answered 410 Gone; the endpoint is disabled"
  if (status === 429) return "answered 429 Too Many Requests"
  return `answered ${status}`
}

/**
 * Judges attempt number `attempt` of a delivery, sent at `at`. A 2xx succeeds; anything else fails
 * and is retried on {@link RETRY_DELAYS_MS} (each wait times `1 ± RETRY_JITTER`, placed by `jitter`
 * in [0, 1)), a 429 no sooner than its `Retry-After`; 410 ends the delivery and disables the
 * endpoint; after {@link MAX_DELIVERY_ATTEMPTS} the delivery has failed.
 */
export const judgeAttempt = (
  input: { readonly attempt: number; readonly at: Date; readonly result: SendResult; readonly jitter: number }
): AttemptVerdict => {
  const { at, attempt: number, jitter, result } = input
  const base = attemptRecord(number, at, result)
  if (isSuccessfulSend(result)) {
    return {
      attempt: new WebhookAttempt({ ...base, status: "succeeded", error: null, nextAttemptAt: null }),
      deliveryStatus: "succeeded",
      nextAttemptAt: null,
      endpoint: "answered"
    }
  }
  const error = result._tag === "Answered" ? answerError(result.status) : result.error
  const gone = result._tag === "Answered" && result.status === 410
  const nextAttemptAt = gone ? null : retryAt(number, at, jitter, result)
  return {
    attempt: new WebhookAttempt({ ...base, status: "failed", error, nextAttemptAt }),
    deliveryStatus: nextAttemptAt === null ? "failed" : "pending",
    nextAttemptAt,
    endpoint: gone ? "gone" : "failed"
  }
}

/** What every attempt records of its result, whatever is judged of it. */
const attemptRecord = (number: number, at: Date, result: SendResult) => ({
  number,
  attemptedAt: at,
  responseStatus: result._tag === "Answered" ? result.status : null,
  responseExcerpt: result._tag === "Answered" ? responseExcerptOf(result.body) : null,
  durationMs: Math.max(0, Math.round(result.durationMs))
})

/**
 * Judges attempt number `attempt` of a test delivery: a 2xx succeeds, anything else fails, and
 * neither is retried nor says anything of the endpoint's health.
 */
export const judgeTestAttempt = (
  input: { readonly attempt: number; readonly at: Date; readonly result: SendResult }
): WebhookAttempt => {
  const { at, attempt: number, result } = input
  const success = isSuccessfulSend(result)
  return new WebhookAttempt({
    ...attemptRecord(number, at, result),
    status: success ? "succeeded" : "failed",
    error: success ? null : result._tag === "Answered" ? `answered ${result.status}` : result.error,
    nextAttemptAt: null
  })
}

const retryAt = (attempt: number, at: Date, jitter: number, result: SendResult): Date | null => {
  const delay = RETRY_DELAYS_MS[attempt - 1]
  if (delay === undefined) return null
  const jittered = delay * (1 - RETRY_JITTER + 2 * RETRY_JITTER * Math.min(Math.max(jitter, 0), 1))
  const retryAfter = result._tag === "Answered" && result.status === 429
    ? Option.getOrElse(result.retryAfterMs, () => 0)
    : 0
  return new Date(at.getTime() + Math.round(Math.max(jittered, Math.min(retryAfter, MAX_RETRY_AFTER_MS))))
}

/** Whether an endpoint failing since `failingSince` has failed long enough at `at` to be disabled. */
export const hasFailedTooLong = (failingSince: Date, at: Date): boolean =>
  at.getTime() - failingSince.getTime() >= FAILING_ENDPOINT_DISABLE_AFTER_MS

/** An HTTP date as RFC 9110 prefers it: `Sun, 06 Nov 1994 08:49:37 GMT`. */
const httpDate = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/

/**
 * Reads a `Retry-After` header (seconds, or an HTTP date) as a wait in milliseconds from `at`.
 * Anything else is `None`.
 */
export const parseRetryAfter = (value: string | undefined, at: Date): Option.Option<number> => {
  if (value === undefined) return Option.none()
  const trimmed = value.trim()
  if (/^\d+$/.test(trimmed)) return Option.some(Number(trimmed) * 1000)
  if (!httpDate.test(trimmed)) return Option.none()
  const date = Date.parse(trimmed)
  return Number.isNaN(date) ? Option.none() : Option.some(Math.max(0, date - at.getTime()))
}
