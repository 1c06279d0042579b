import { HttpApiBuilder } from "@effect/platform"
import { type WebhookAttemptStats, type WebhookTestResult as TestResult, Webhooks } from "@roster/application"
import {
  eventTypeDescriptions,
  eventTypes,
  PREVIOUS_SECRET_GRACE_MS,
  type WebhookAttempt as DomainAttempt,
  type WebhookDeliveryHistory,
  type WebhookEndpoint as DomainEndpoint
} from "@roster/domain"
import { Effect } from "effect"
import { respond } from "../shared/respond.js"
import { toCreatedWebhookEndpoint, toWebhookEndpoint } from "../shared/webhook-endpoint-schemas.js"
import { ReferenceApi } from "./api.js"
import {
  type RegeneratedWebhookEndpoint,
  type WebhookAttempt,
  type WebhookDelivery,
  type WebhookStats,
  type WebhookTestResult
} from "./webhook-schemas.js"

const iso = (date: Date | null): string | null => date === null ? null : date.toISOString()

/** Milliseconds as the wire shows them: whole and never negative. */
const wholeMs = (ms: number): number => Math.max(0, Math.round(ms))

const toRegeneratedWebhookEndpoint = (endpoint: DomainEndpoint): typeof RegeneratedWebhookEndpoint.Type => ({
  ...toCreatedWebhookEndpoint(endpoint),
  // A regeneration always sets it; the fallback, the same instant, only satisfies the type.
  previous_secret_expires_at: (
    endpoint.previousSigningSecretExpiresAt ?? new Date(endpoint.updatedAt.getTime() + PREVIOUS_SECRET_GRACE_MS)
  ).toISOString()
})

const toAttempt = (attempt: DomainAttempt): typeof WebhookAttempt.Type => ({
  attempt: attempt.number,
  attempted_at: attempt.attemptedAt.toISOString(),
  status: attempt.status,
  response_status_code: attempt.responseStatus,
  duration_ms: wholeMs(attempt.durationMs),
  error: attempt.error,
  next_attempt_at: iso(attempt.nextAttemptAt)
})

const toDelivery = ({ attempts, delivery }: WebhookDeliveryHistory): typeof WebhookDelivery.Type => ({
  id: delivery.id,
  webhook_id: delivery.endpointId,
  event_id: delivery.eventId,
  event_type: delivery.eventType,
  test: delivery.test,
  status: delivery.status,
  attempt_count: delivery.attemptCount,
  next_attempt_at: iso(delivery.nextAttemptAt),
  created_at: delivery.createdAt.toISOString(),
  updated_at: delivery.updatedAt.toISOString(),
  attempts: attempts.map(toAttempt)
})

const toTestResult = (result: TestResult): typeof WebhookTestResult.Type => ({
  success: result.success,
  status_code: result.statusCode,
  response_time_ms: wholeMs(result.responseTimeMs),
  error: result.error
})

const attemptFigures = (figures: WebhookAttemptStats) => ({
  attempts: figures.attempts,
  succeeded: figures.succeeded,
  failed: figures.failed,
  success_rate: figures.attempts === 0 ? null : figures.succeeded / figures.attempts,
  latency_ms: {
    p50: figures.p50Ms === null ? null : wholeMs(figures.p50Ms),
    p95: figures.p95Ms === null ? null : wholeMs(figures.p95Ms)
  },
  last_success_at: iso(figures.lastSuccessAt),
  last_failure_at: iso(figures.lastFailureAt),
  pending_deliveries: figures.pending
})

const toStats = (
  stats: WebhookAttemptStats & { readonly endpoint: DomainEndpoint; readonly since: Date }
): typeof WebhookStats.Type => ({
  webhook_id: stats.endpoint.id,
  since: stats.since.toISOString(),
  ...attemptFigures(stats)
})

const eventTypeList = { items: eventTypes.map((type) => ({ type, description: eventTypeDescriptions[type] })) }

const toGlobalStats = (stats: Effect.Effect.Success<ReturnType<Webhooks["globalStats"]>>) => ({
  since: stats.since.toISOString(),
  endpoints: { total: stats.endpoints, active: stats.activeEndpoints, disabled: stats.disabledEndpoints },
  ...attemptFigures(stats)
})

const toEndpointList = (endpoints: ReadonlyArray<DomainEndpoint>) => ({
  items: endpoints.map(toWebhookEndpoint),
  total: endpoints.length
})

const toDeliveryPage = (page: { readonly items: ReadonlyArray<WebhookDeliveryHistory>; readonly nextCursor: string | null }) => ({
  items: page.items.map(toDelivery),
  next_cursor: page.nextCursor
})

// The request bodies and queries of this form name their fields as the use case does.
export const WebhooksHandlersLive = HttpApiBuilder.group(ReferenceApi, "webhooks", (handlers) =>
  Effect.gen(function*() {
    const webhooks = yield* Webhooks
    return handlers
      .handle("eventTypes", () => Effect.succeed(eventTypeList))
      .handle("globalStats", () => respond(webhooks.globalStats, toGlobalStats))
      .handle("create", ({ payload }) => respond((caller) => webhooks.create(caller, payload), toCreatedWebhookEndpoint))
      .handle("list", () => respond(webhooks.list, toEndpointList))
      .handle("get", ({ path }) => respond((caller) => webhooks.get(caller, path.webhook_id), toWebhookEndpoint))
      .handle("update", ({ path, payload }) =>
        respond((caller) => webhooks.update(caller, path.webhook_id, payload), toWebhookEndpoint))
      .handle("delete", ({ path }) => respond((caller) => webhooks.remove(caller, path.webhook_id)))
      .handle("test", ({ path }) => respond((caller) => webhooks.test(caller, path.webhook_id), toTestResult))
      .handle("regenerateSecret", ({ path }) =>
        respond((caller) => webhooks.regenerateSecret(caller, path.webhook_id), toRegeneratedWebhookEndpoint))
      .handle("listDeliveries", ({ path, urlParams }) =>
        respond((caller) => webhooks.listDeliveries(caller, path.webhook_id, urlParams), toDeliveryPage))
      .handle("getDelivery", ({ path }) =>
        respond((caller) => webhooks.getDelivery(caller, path.webhook_id, path.delivery_id), toDelivery))
      .handle("retryDelivery", ({ path }) =>
        respond((caller) => webhooks.retryDelivery(caller, path.webhook_id, path.delivery_id), toDelivery))
      .handle("stats", ({ path }) => respond((caller) => webhooks.stats(caller, path.webhook_id), toStats))
  }))
