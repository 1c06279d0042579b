import {
  activeSigningSecrets,
  DELIVERY_TIMEOUT_MS,
  hasFailedTooLong,
  judgeAttempt,
  WebhookDelivery,
  WebhookDeliveryId,
  type WebhookDisabledReason,
  type WebhookEndpoint,
  type WebhookEndpointId,
  WEBHOOK_HISTORY_RETENTION_MS,
  webhookPayload
} from "@roster/domain"
import { Duration, Effect, Option, Random } from "effect"
import { now } from "./support/clock.js"
import { Ids } from "./ports/ids.js"
import { Outbox } from "./ports/outbox.js"
import { TriggerRepository } from "./ports/trigger-repository.js"
import { UnitOfWork } from "./ports/unit-of-work.js"
import { type LeasedDelivery, WebhookDeliveryRepository } from "./ports/webhook-delivery-repository.js"
import { WebhookEndpointRepository } from "./ports/webhook-endpoint-repository.js"
import { WebhookTransport } from "./ports/webhook-transport.js"
import { isImportEvent } from "./support/event-payloads.js"
import { makeSequenceEntries } from "./support/sequence-entries.js"
import { operations } from "./support/operation.js"

/** The shortest lease that still outlasts a send. */
export const MIN_LEASE_MS = DELIVERY_TIMEOUT_MS + 2_000

/** What one fan-out did: the events it took, and the deliveries it made of them. */
export interface FanOutResult {
  readonly events: number
  readonly deliveries: number
}

/** Deliveries leased for sending, and the lease: its token proves it when an attempt is recorded. */
export interface LeasedBatch {
  readonly leased: ReadonlyArray<LeasedDelivery>
  readonly lease: Lease
}

/** A lease on deliveries: its token, and how long it holds from when it is taken or renewed. */
export interface Lease {
  readonly token: string
  readonly ms: number
}

export interface ClaimRequest {
  readonly limit: number
  /** How long the lease holds; never less than {@link MIN_LEASE_MS}. */
  readonly leaseMs: number
  /** Endpoints whose deliveries this claim passes over. */
  readonly skipEndpoints?: ReadonlyArray<WebhookEndpointId> | undefined
}

/**
 * Moves recorded events to webhook endpoints: fan-out turns each event into a delivery per
 * endpoint that hears it; delivery sends what is due and records each attempt. Both run in any
 * number of workers at once without sending an attempt twice. How often, and how many at once, is
 * the worker's business.
 */
export class WebhookDispatch extends Effect.Service<WebhookDispatch>()("roster/WebhookDispatch", {
  effect: Effect.gen(function*() {
    const operation = yield* operations
    const outbox = yield* Outbox
    const triggers = yield* TriggerRepository
    const endpoints = yield* WebhookEndpointRepository
    const deliveries = yield* WebhookDeliveryRepository
    const transport = yield* WebhookTransport
    const unitOfWork = yield* UnitOfWork
    const ids = yield* Ids
    const sequenceEntries = yield* makeSequenceEntries

    /**
     * Takes up to `limit` recorded events and makes a delivery, due at once, for every active
     * endpoint of the event's organization that hears its kind.
     */
    const fanOut = operation("WebhookDispatch.fanOut")((limit: number): Effect.Effect<FanOutResult> =>
      unitOfWork.transaction(Effect.gen(function*() {
        const events = yield* outbox.claimUndispatched(limit)
        if (events.length === 0) return { events: 0, deliveries: 0 }
        const listening = yield* endpoints.activeOf([...new Set(events.map((event) => event.organizationId))])
        const at = yield* now
        const pairs = events.flatMap((event) =>
          listening.filter((endpoint) => endpoint.hears(event)).map((endpoint) => ({ event, endpoint }))
        )
        const made = yield* Effect.forEach(pairs, ({ endpoint, event }) =>
          Effect.map(ids.next, (id) =>
            new WebhookDelivery({
              id: WebhookDeliveryId.make(id),
              organizationId: event.organizationId,
              endpointId: endpoint.id,
              eventId: event.id,
              eventType: event.type,
              status: "pending",
              attemptCount: 0,
              nextAttemptAt: at,
              createdAt: at,
              updatedAt: at
            })))
        yield* deliveries.insertMany(made)
        // Email triggers hear the same events, in the same transaction: each committed event fires
        // them once. An import's events fire none (a list brought over is not a wave of sign-ups).
        const heard = events.filter((event) => !isImportEvent(event))
        yield* triggers.recordFirings(heard, at)
        // Sequences enter subscribers from the same events, in the same transaction.
        yield* sequenceEntries(heard, at)
        yield* outbox.markDispatchedThrough(events[events.length - 1]!.id, at)
        return { events: events.length, deliveries: made.length }
      })))

    /** Disables the endpoint; its pending deliveries wait, out of every claim, until it is resumed. */
    const disable = (endpoint: WebhookEndpoint, reason: WebhookDisabledReason, at: Date) =>
      unitOfWork.transaction(Effect.zipRight(
        endpoints.disable(endpoint.id, reason, at),
        deliveries.holdPending(endpoint.id, at)
      )).pipe(
        Effect.zipRight(
          Effect.logWarning(`webhook endpoint disabled: ${reason === "gone" ? "it answered 410 Gone" : "it has failed for five days"}`)
            .pipe(Effect.annotateLogs({ webhook_id: endpoint.id, organization_id: endpoint.organizationId }))
        )
      )

    /**
     * Renews the lease of the batch's deliveries still being sent, halfway through each term: a
     * send that outlasts its lease (a slow receiver, a starved process) keeps it, so no other
     * worker sends the delivery again meanwhile. A delivery whose lease is no longer this one's is
     * not renewed again. It never ends by itself: the batch's last send ends it.
     */
    const keepLeases = (lease: Lease, sending: Set<WebhookDeliveryId>) =>
      Effect.gen(function*() {
        while (sending.size > 0) {
          yield* Effect.sleep(Duration.millis(lease.ms / 2))
          const at = yield* now
          const leasedUntil = new Date(at.getTime() + lease.ms)
          for (const deliveryId of [...sending]) {
            const kept = yield* deliveries.renewLease({ deliveryId, leaseToken: lease.token, leasedUntil })
            if (!kept) sending.delete(deliveryId)
          }
        }
      }).pipe(Effect.zipRight(Effect.never))

    /**
     * Sends a leased batch's deliveries side by side, each on its own, and records each attempt and
     * what the answer means for the endpoint; `ended` runs as each send ends, however it ended. The
     * lease is renewed meanwhile, one renewal for the batch rather than one a send; the renewals
     * stop with the last send, even where the sends themselves may not be interrupted.
     */
    const attemptAll = (batch: LeasedBatch, ended: (leased: LeasedDelivery) => Effect.Effect<void> = () => Effect.void) => {
      const sending = new Set(batch.leased.map((leased) => leased.delivery.id))
      return Effect.raceFirst(
        Effect.forEach(
          batch.leased,
          (leased) =>
            send(leased, batch.lease.token).pipe(
              Effect.ensuring(Effect.suspend(() => {
                sending.delete(leased.delivery.id)
                return ended(leased)
              }))
            ),
          { concurrency: "unbounded", discard: true }
        ),
        Effect.interruptible(keepLeases(batch.lease, sending))
      )
    }

    /** Sends one leased delivery and records the attempt, as {@link attemptAll} does for a batch. */
    const attempt = (leased: LeasedDelivery, lease: Lease) => attemptAll({ leased: [leased], lease })

    const send = operation("WebhookDispatch.attempt")((leased: LeasedDelivery, leaseToken: string) =>
      Effect.gen(function*() {
        const { delivery, endpoint, event } = leased
        const at = yield* now
        const result = yield* transport.send({
          url: endpoint.url,
          id: event.id,
          timestamp: at,
          body: webhookPayload(event),
          secrets: activeSigningSecrets(endpoint, at)
        })
        const verdict = judgeAttempt({
          attempt: delivery.attemptCount + 1,
          at,
          result,
          jitter: yield* Random.next
        })
        const recorded = yield* deliveries.recordAttempt({
          deliveryId: delivery.id,
          leaseToken,
          attempt: verdict.attempt,
          status: verdict.deliveryStatus,
          nextAttemptAt: verdict.nextAttemptAt
        })
        if (!recorded) {
          return yield* Effect.logWarning(
            "a webhook attempt was not recorded: its lease ran out, or the delivery was retried or deleted, while it was being sent"
          ).pipe(
            Effect.annotateLogs({ delivery_id: delivery.id })
          )
        }
        yield* Effect.logInfo(`webhook ${verdict.attempt.status}`, {
          delivery_id: delivery.id,
          webhook_id: endpoint.id,
          organization_id: endpoint.organizationId,
          event_type: event.type,
          attempt: verdict.attempt.number,
          response_status: verdict.attempt.responseStatus,
          duration_ms: verdict.attempt.durationMs,
          error: verdict.attempt.error,
          next_attempt_at: verdict.nextAttemptAt
        })
        switch (verdict.endpoint) {
          case "answered":
            // Nothing to clear when the endpoint was healthy at the claim; a failure since then is
            // cleared by the next success claimed after it.
            return endpoint.failingSince === null ? undefined : yield* endpoints.markAnswered(endpoint.id)
          case "gone":
            return yield* disable(endpoint, "gone", at)
          case "failed": {
            const failingSince = yield* endpoints.markFailed(endpoint.id, at)
            if (Option.isSome(failingSince) && hasFailedTooLong(failingSince.value, at)) {
              yield* disable(endpoint, "failing", at)
            }
          }
        }
      }))

    /** Leases up to `limit` due deliveries for this caller alone, until the lease runs out. */
    const claimDue = operation("WebhookDispatch.claimDue")((request: ClaimRequest): Effect.Effect<LeasedBatch> =>
      Effect.gen(function*() {
        const at = yield* now
        const lease: Lease = { token: yield* ids.next, ms: Math.max(request.leaseMs, MIN_LEASE_MS) }
        const leased = yield* deliveries.claimDue({
          now: at,
          limit: request.limit,
          leaseToken: lease.token,
          leasedUntil: new Date(at.getTime() + lease.ms),
          skipEndpoints: request.skipEndpoints
        })
        return { leased, lease }
      }))

    /**
     * Leases up to `limit` due deliveries, sends them side by side and waits for them all: one
     * batch, start to end, for callers that want "send what is due now" (tests, tools). The worker
     * claims and attempts on its own schedule instead. The batch is not interrupted: each send ends
     * within the delivery time-out. How many it sent.
     */
    const deliverDue = operation("WebhookDispatch.deliverDue")((limit: number, leaseMs: number) =>
      Effect.flatMap(claimDue({ limit, leaseMs }), (batch) => Effect.as(attemptAll(batch), batch.leased.length))
        .pipe(Effect.uninterruptible))

    /**
     * Forgets webhook history older than {@link WEBHOOK_HISTORY_RETENTION_MS}: finished deliveries
     * with their attempts, then dispatched events no delivery refers to. Up to `limit` of each;
     * how many rows it deleted.
     */
    const pruneHistory = operation("WebhookDispatch.pruneHistory")((limit: number) =>
      Effect.gen(function*() {
        const before = new Date((yield* now).getTime() - WEBHOOK_HISTORY_RETENTION_MS)
        const deliveriesPruned = yield* deliveries.pruneFinished(before, limit)
        const eventsPruned = yield* outbox.pruneDispatched(before, limit)
        return Math.max(deliveriesPruned, eventsPruned)
      }))

    return { fanOut, claimDue, attempt, attemptAll, deliverDue, pruneHistory } as const
  })
}) {}
