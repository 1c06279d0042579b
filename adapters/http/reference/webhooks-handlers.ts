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
import { CurrentPrincipal } from "../current-principal.js"
import { ReferenceApi } from "./api.js"
import { answerWithProblem } from "./application-problems.js"
import {
  type RegeneratedWebhookEndpoint,
  toCreatedWebhookEndpoint,
  toWebhookEndpoint,
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

export const WebhooksHandlersLive = HttpApiBuilder.group(ReferenceApi, "webhooks", (handlers) =>
  Effect.gen(function*() {
    const webhooks = yield* Webhooks
    return handlers
      .handle("eventTypes", () => Effect.succeed(eventTypeList))
      .handle("globalStats", () =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) => webhooks.globalStats(principal)),
          Effect.map((stats) => ({
            since: stats.since.toISOString(),
            endpoints: { total: stats.endpoints, active: stats.activeEndpoints, disabled: stats.disabledEndpoints },
            ...attemptFigures(stats)
          })),
          answerWithProblem
        ))
      .handle("create", ({ payload }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) =>
            webhooks.create(principal, { url: payload.url, events: payload.events, description: payload.description })
          ),
          Effect.map(toCreatedWebhookEndpoint),
          answerWithProblem
        ))
      .handle("list", () =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) => webhooks.list(principal)),
          Effect.map((endpoints) => ({ items: endpoints.map(toWebhookEndpoint), total: endpoints.length })),
          answerWithProblem
        ))
      .handle("get", ({ path }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) => webhooks.get(principal, path.webhook_id)),
          Effect.map(toWebhookEndpoint),
          answerWithProblem
        ))
      .handle("update", ({ path, payload }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) =>
            webhooks.update(principal, path.webhook_id, {
              url: payload.url,
              events: payload.events,
              description: payload.description,
              status: payload.status
            })
          ),
          Effect.map(toWebhookEndpoint),
          answerWithProblem
        ))
      .handle("delete", ({ path }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) => webhooks.remove(principal, path.webhook_id)),
          answerWithProblem
        ))
      .handle("test", ({ path }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) => webhooks.test(principal, path.webhook_id)),
          Effect.map(toTestResult),
          answerWithProblem
        ))
      .handle("regenerateSecret", ({ path }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) => webhooks.regenerateSecret(principal, path.webhook_id)),
          Effect.map(toRegeneratedWebhookEndpoint),
          answerWithProblem
        ))
      .handle("listDeliveries", ({ path, urlParams }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) =>
            webhooks.listDeliveries(principal, path.webhook_id, {
              limit: urlParams.limit,
              cursor: urlParams.cursor,
              status: urlParams.status
            })
          ),
          Effect.map((page) => ({ items: page.items.map(toDelivery), next_cursor: page.nextCursor })),
          answerWithProblem
        ))
      .handle("getDelivery", ({ path }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) => webhooks.getDelivery(principal, path.webhook_id, path.delivery_id)),
          Effect.map(toDelivery),
          answerWithProblem
        ))
      .handle("retryDelivery", ({ path }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) => webhooks.retryDelivery(principal, path.webhook_id, path.delivery_id)),
          Effect.map(toDelivery),
          answerWithProblem
        ))
      .handle("stats", ({ path }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) => webhooks.stats(principal, path.webhook_id)),
          Effect.map(toStats),
          answerWithProblem
        ))
  }))
