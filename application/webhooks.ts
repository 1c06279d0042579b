import {
  activeSigningSecrets,
  allEventTypes,
  EventId,
  type EventType,
  InvalidInput,
  judgeTestAttempt,
  isUuid,
  MAX_WEBHOOK_ENDPOINTS,
  reason,
  ResourceNotFound,
  SIGNING_SECRET_BYTES,
  signingSecretFromBytes,
  TEST_EVENT_TYPE,
  WebhookDelivery,
  type WebhookDeliveryHistory,
  WebhookDeliveryId,
  type WebhookDeliveryStatus,
  WebhookEndpoint,
  WebhookEndpointId,
  type WebhookEndpointStatus,
  webhookPayload,
  withNewSigningSecret
} from "@roster/domain"
import { Effect, Option } from "effect"
import { now } from "./support/clock.js"
import { cutPage, positionFromCursor } from "./support/keyset.js"
import { requireOwned } from "./support/ownership.js"
import { Ids } from "./ports/ids.js"
import { Outbox } from "./ports/outbox.js"
import { Secrets } from "./ports/secrets.js"
import { UnitOfWork } from "./ports/unit-of-work.js"
import { WebhookDeliveryRepository } from "./ports/webhook-delivery-repository.js"
import { WebhookEndpointRepository } from "./ports/webhook-endpoint-repository.js"
import { WebhookTransport } from "./ports/webhook-transport.js"
import { authorize, type Principal } from "./support/principal.js"
import { operations } from "./support/operation.js"

export interface NewWebhookEndpoint {
  readonly url: string
  /** Left out: every event kind. */
  readonly events?: ReadonlyArray<EventType> | undefined
  readonly description?: string | null | undefined
}

export interface WebhookEndpointChanges {
  readonly url?: string | undefined
  readonly events?: ReadonlyArray<EventType> | undefined
  readonly description?: string | null | undefined
  /** `disabled` pauses deliveries; `active` resumes them, the pending ones at once. */
  readonly status?: WebhookEndpointStatus | undefined
}

/** What `POST /webhooks/{id}/test` reports. */
export interface WebhookTestResult {
  readonly success: boolean
  /** The receiver's status, or 0 when no answer came. */
  readonly statusCode: number
  readonly responseTimeMs: number
  readonly error: string | null
  /** The test delivery that records it in the endpoint's delivery log. */
  readonly deliveryId: WebhookDeliveryId
}

/** Stats cover the attempts of this span, up to now. */
export const WEBHOOK_STATS_SPAN_MS = 7 * 24 * 3_600_000

export class Webhooks extends Effect.Service<Webhooks>()("roster/Webhooks", {
  effect: Effect.gen(function*() {
    const operation = yield* operations
    const endpoints = yield* WebhookEndpointRepository
    const deliveries = yield* WebhookDeliveryRepository
    const transport = yield* WebhookTransport
    const unitOfWork = yield* UnitOfWork
    const secrets = yield* Secrets
    const ids = yield* Ids
    const outbox = yield* Outbox

    const newSecret = Effect.map(secrets.randomBytes(SIGNING_SECRET_BYTES), signingSecretFromBytes)

    const owned = (principal: Principal, id: WebhookEndpointId) =>
      requireOwned("webhook", id, endpoints.findById(principal.organization.id, id), () => endpoints.organizationOf(id))

    const create = operation("Webhooks.create")(function*(principal: Principal, input: NewWebhookEndpoint) {
      yield* authorize(principal, "webhooks:manage")
      yield* transport.checkTarget(input.url, "url")
      const at = yield* now
      const endpoint = new WebhookEndpoint({
        id: WebhookEndpointId.make(yield* ids.next),
        organizationId: principal.organization.id,
        url: input.url,
        events: input.events ?? allEventTypes,
        description: input.description ?? null,
        status: "active",
        disabledReason: null,
        signingSecret: yield* newSecret,
        previousSigningSecret: null,
        previousSigningSecretExpiresAt: null,
        failingSince: null,
        createdAt: at,
        updatedAt: at
      })
      if (!(yield* endpoints.insert(endpoint, MAX_WEBHOOK_ENDPOINTS))) {
        return yield* new InvalidInput({
          field: "url",
          reason: reason("webhookEndpoints", { max: MAX_WEBHOOK_ENDPOINTS })
        })
      }
      return endpoint
    })

    const list = operation("Webhooks.list")(function*(principal: Principal) {
      yield* authorize(principal, "webhooks:manage")
      return yield* endpoints.listByOrganization(principal.organization.id)
    })

    const get = operation("Webhooks.get")(function*(principal: Principal, id: WebhookEndpointId) {
      yield* authorize(principal, "webhooks:manage")
      return yield* owned(principal, id)
    })

    const update = operation("Webhooks.update")(function*(
      principal: Principal,
      id: WebhookEndpointId,
      changes: WebhookEndpointChanges
    ) {
      yield* authorize(principal, "webhooks:manage")
      if (changes.url !== undefined) yield* transport.checkTarget(changes.url, "url")
      const current = yield* owned(principal, id)
      const status = changes.status ?? current.status
      const resumed = current.status === "disabled" && status === "active"
      const updated = new WebhookEndpoint({
        ...current,
        url: changes.url ?? current.url,
        events: changes.events ?? current.events,
        description: changes.description === undefined ? current.description : changes.description,
        status,
        disabledReason: status === "active" ? null : current.status === "disabled" ? current.disabledReason : "by_user",
        // A resumed endpoint starts with a clean record: five more days before it can be disabled again.
        failingSince: resumed ? null : current.failingSince,
        updatedAt: yield* now
      })
      yield* unitOfWork.transaction(Effect.gen(function*() {
        yield* endpoints.update(updated)
        if (resumed) yield* deliveries.resumeHeld(id, updated.updatedAt)
        if (current.status === "active" && status === "disabled") yield* deliveries.holdPending(id, updated.updatedAt)
      }))
      return updated
    })

    const remove = operation("Webhooks.remove")(function*(principal: Principal, id: WebhookEndpointId) {
      yield* authorize(principal, "webhooks:manage")
      yield* owned(principal, id)
      yield* endpoints.delete(principal.organization.id, id)
    })

    /** A new signing secret, shown this once; the old one keeps signing beside it for 24 hours. */
    const regenerateSecret = operation("Webhooks.regenerateSecret")(function*(
      principal: Principal,
      id: WebhookEndpointId
    ) {
      yield* authorize(principal, "webhooks:manage")
      const current = yield* owned(principal, id)
      const updated = withNewSigningSecret(current, yield* newSecret, yield* now)
      yield* endpoints.update(updated)
      return updated
    })

    /**
     * Sends a test delivery's message (again), signed like any delivery, with its `webhook-id`, and
     * records the attempt after it: the delivery's status is that of its latest attempt, and it is
     * never left pending, so no worker retries it. The endpoint's failure streak is not touched.
     */
    const sendTest = (endpoint: WebhookEndpoint, delivery: WebhookDelivery, body: string) =>
      Effect.gen(function*() {
        const at = yield* now
        const result = yield* transport.send({
          url: endpoint.url,
          id: delivery.eventId,
          timestamp: at,
          body,
          secrets: activeSigningSecrets(endpoint, at)
        })
        const attempt = judgeTestAttempt({ attempt: delivery.attemptCount + 1, at, result })
        const recorded = new WebhookDelivery({
          ...delivery,
          status: attempt.status,
          attemptCount: attempt.number,
          nextAttemptAt: null,
          updatedAt: at
        })
        yield* deliveries.recordTest({ delivery: recorded, attempt })
        return { result, attempt, delivery: recorded }
      })

    /**
     * Sends a `webhook.test` message to the endpoint at once, signed like any delivery, and reports
     * what came back. It is recorded in the endpoint's delivery log as a test delivery.
     */
    const test = operation("Webhooks.test")(function*(principal: Principal, id: WebhookEndpointId) {
      yield* authorize(principal, "webhooks:manage")
      const endpoint = yield* owned(principal, id)
      const at = yield* now
      const messageId = yield* ids.next
      const body = JSON.stringify({
        id: messageId,
        type: TEST_EVENT_TYPE,
        created_at: at.toISOString(),
        organization_id: endpoint.organizationId,
        data: { webhook_id: endpoint.id, message: "This is a test event from Roster." }
      })
      const delivery = new WebhookDelivery({
        id: WebhookDeliveryId.make(yield* ids.next),
        organizationId: endpoint.organizationId,
        endpointId: endpoint.id,
        eventId: EventId.make(messageId),
        eventType: TEST_EVENT_TYPE,
        status: "failed",
        attemptCount: 0,
        nextAttemptAt: null,
        createdAt: at,
        updatedAt: at,
        test: true,
        testBody: body
      })
      const { attempt, result } = yield* sendTest(endpoint, delivery, body)
      return {
        success: attempt.status === "succeeded",
        statusCode: result._tag === "Answered" ? result.status : 0,
        responseTimeMs: result.durationMs,
        error: attempt.error,
        deliveryId: delivery.id
      } satisfies WebhookTestResult
    })

    /** The endpoint's deliveries, newest first, each with its attempts. */
    const listDeliveries = operation("Webhooks.listDeliveries")(function*(
      principal: Principal,
      id: WebhookEndpointId,
      query: {
        readonly limit: number
        readonly cursor?: string | undefined
        readonly status?: WebhookDeliveryStatus | undefined
      }
    ) {
      yield* authorize(principal, "webhooks:manage")
      yield* owned(principal, id)
      const notOurs = new InvalidInput({ field: "cursor", reason: reason("cursorOfOtherList") })
      const position = yield* positionFromCursor(query.cursor, "id", "desc").pipe(Effect.mapError(() => notOurs))
      if (position !== undefined && !isUuid(position.id)) return yield* notOurs
      const page = yield* deliveries.listByEndpoint({
        organizationId: principal.organization.id,
        endpointId: id,
        limit: query.limit + 1,
        after: position === undefined ? Option.none() : Option.some(WebhookDeliveryId.make(position.id)),
        status: Option.fromNullable(query.status)
      })
      const rows = page.items.map((history) => ({ ...history, id: history.delivery.id }))
      const cut = cutPage(rows, query.limit, "id", "desc", (row) => row.id)
      return { items: cut.items.map(({ attempts, delivery }) => ({ attempts, delivery })), nextCursor: cut.nextCursor }
    })

    /**
     * A page of the endpoint's deliveries as `listDeliveries` answers it, each with the body its
     * attempts sent (the event's payload as it is kept now), or null once the event is gone.
     */
    const deliveryLog = operation("Webhooks.deliveryLog")(function*(
      principal: Principal,
      id: WebhookEndpointId,
      query: { readonly limit: number; readonly cursor?: string | undefined }
    ) {
      const page = yield* listDeliveries(principal, id, query)
      const events = yield* outbox.findByIds(principal.organization.id, [...new Set(page.items.map(({ delivery }) => delivery.eventId))])
      const payloads = new Map(events.map((event) => [event.id as string, webhookPayload(event)]))
      return {
        items: page.items.map((history) => ({
          ...history,
          payload: history.delivery.test ? history.delivery.testBody : payloads.get(history.delivery.eventId) ?? null
        })),
        nextCursor: page.nextCursor
      }
    })

    /** The delivery a lookup found, or not found under the endpoint. */
    const deliveryFound = (deliveryId: WebhookDeliveryId) =>
      Option.match({
        onNone: () => Effect.fail(new ResourceNotFound({ resource: "webhook_delivery", id: deliveryId })),
        onSome: (history: WebhookDeliveryHistory) => Effect.succeed(history)
      })

    const getDelivery = operation("Webhooks.getDelivery")(function*(
      principal: Principal,
      endpointId: WebhookEndpointId,
      deliveryId: WebhookDeliveryId
    ) {
      yield* authorize(principal, "webhooks:manage")
      yield* owned(principal, endpointId)
      return yield* Effect.flatMap(
        deliveries.findById(principal.organization.id, endpointId, deliveryId),
        deliveryFound(deliveryId)
      )
    })

    /**
     * Sends a delivery again as soon as a worker is free, whatever became of it: a new attempt with
     * the same `webhook-id`. An endpoint that is disabled holds it until resumed. A test delivery is
     * sent again at once instead, its attempt recorded before the answer, and never by a worker.
     */
    const retryDelivery = operation("Webhooks.retryDelivery")(function*(
      principal: Principal,
      endpointId: WebhookEndpointId,
      deliveryId: WebhookDeliveryId
    ) {
      yield* authorize(principal, "webhooks:manage")
      const endpoint = yield* owned(principal, endpointId)
      const found = yield* deliveries.findById(principal.organization.id, endpointId, deliveryId)
      if (Option.isSome(found) && found.value.delivery.test) {
        const { delivery } = found.value
        yield* sendTest(endpoint, delivery, delivery.testBody ?? "")
        return yield* Effect.flatMap(
          deliveries.findById(principal.organization.id, endpointId, deliveryId),
          deliveryFound(deliveryId)
        )
      }
      const retried = yield* deliveries.retryNow(principal.organization.id, endpointId, deliveryId, yield* now)
      return yield* deliveryFound(deliveryId)(retried)
    })

    const statsSince = Effect.map(now, (at) => ({ at, since: new Date(at.getTime() - WEBHOOK_STATS_SPAN_MS) }))

    /** The endpoint's attempts of the last seven days. */
    const stats = operation("Webhooks.stats")(function*(principal: Principal, id: WebhookEndpointId) {
      yield* authorize(principal, "webhooks:manage")
      const endpoint = yield* owned(principal, id)
      const { since } = yield* statsSince
      const figures = yield* deliveries.stats({
        organizationId: principal.organization.id,
        endpointId: Option.some(id),
        since
      })
      return { endpoint, since, ...figures }
    })

    /** Every endpoint's attempts of the last seven days, with how many endpoints are active and disabled. */
    const globalStats = operation("Webhooks.globalStats")(function*(principal: Principal) {
      yield* authorize(principal, "webhooks:manage")
      const { since } = yield* statsSince
      const all = yield* endpoints.listByOrganization(principal.organization.id)
      const figures = yield* deliveries.stats({
        organizationId: principal.organization.id,
        endpointId: Option.none(),
        since
      })
      return {
        since,
        endpoints: all.length,
        activeEndpoints: all.filter((endpoint) => endpoint.status === "active").length,
        disabledEndpoints: all.filter((endpoint) => endpoint.status === "disabled").length,
        ...figures
      }
    })

    return {
      create,
      list,
      get,
      update,
      remove,
      regenerateSecret,
      test,
      listDeliveries,
      deliveryLog,
      getDelivery,
      retryDelivery,
      stats,
      globalStats
    } as const
  })
}) {}
