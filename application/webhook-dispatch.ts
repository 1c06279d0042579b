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
import { Context, Effect, FiberSet, Option, Random } from "effect"
import { now } from "./clock.js"
import { type Job, makeWakeUp } from "./jobs.js"
import { Ids } from "./ports/ids.js"
import { Outbox } from "./ports/outbox.js"
import { UnitOfWork } from "./ports/unit-of-work.js"
import { type LeasedDelivery, WebhookDeliveryRepository } from "./ports/webhook-delivery-repository.js"
import { WebhookEndpointRepository } from "./ports/webhook-endpoint-repository.js"
import { WebhookTransport } from "./ports/webhook-transport.js"

/** How the worker moves webhook work; the defaults suit production. */
export class WebhookDispatchSettings extends Context.Reference<WebhookDispatchSettings>()(
  "roster/WebhookDispatchSettings",
  {
    defaultValue: () => ({
      /** Recorded events turned into deliveries per transaction. */
      fanOutBatch: 200,
      /** Sends in flight at once in one worker. */
      maxInFlight: 100,
      /**
       * Once this many sends to one endpoint are in flight in one worker, claims pass over it, so an
       * endpoint that answers slowly (or not at all, until the time-out) cannot take every slot from
       * the others. One claim may take it past this by up to `claimBatch - 1`.
       */
      endpointInFlight: 50,
      /** Deliveries leased by one claim at most. */
      claimBatch: 25,
      /**
       * How long a worker holds leased deliveries. Longer than a send can take, so that no other
       * worker sends the same attempt; a killed worker's deliveries come due again after it.
       */
      leaseMs: 30_000,
      /** The pause of fan-out when it found no events: how long a recorded event may wait. */
      fanOutIdleMs: 50,
      /**
       * The pause of delivery when it found nothing due. Deliveries this worker's fan-out makes, and
       * sends that end, wake it at once; this bounds the wait for retries that come due and for
       * deliveries other workers made.
       */
      deliveryIdleMs: 250,
      /**
       * How long the pauses of a job that keeps finding nothing may grow: the longest a first event
       * after a quiet spell waits for fan-out, and the longest a due retry waits.
       */
      fanOutMaxIdleMs: 500,
      deliveryMaxIdleMs: 1_000
    })
  }
) {}

/** Rows of history deleted per statement, and the pause once there is no more to delete. */
const PRUNE_BATCH = 1_000
const PRUNE_INTERVAL_MS = 10 * 60_000

/** The shortest lease that still outlasts a send. */
export const MIN_LEASE_MS = DELIVERY_TIMEOUT_MS + 2_000

/**
 * Moves recorded events to webhook endpoints: fan-out turns each event into a delivery per
 * endpoint that hears it; delivery sends what is due and records each attempt. Both run in any
 * number of workers at once without sending an attempt twice.
 */
export class WebhookDispatch extends Effect.Service<WebhookDispatch>()("roster/WebhookDispatch", {
  effect: Effect.gen(function*() {
    const outbox = yield* Outbox
    const endpoints = yield* WebhookEndpointRepository
    const deliveries = yield* WebhookDeliveryRepository
    const transport = yield* WebhookTransport
    const unitOfWork = yield* UnitOfWork
    const ids = yield* Ids
    /** Fan-out tells the delivery lanes of this worker that it made deliveries. */
    const deliveriesMade = yield* makeWakeUp
    let deliveriesMadeCount = 0

    /**
     * Takes up to `limit` recorded events and makes a delivery, due at once, for every active
     * endpoint of the event's organization that hears its kind. How many events it took.
     */
    const fanOut = (limit: number) =>
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
        yield* outbox.markDispatched(events.map((event) => event.id), at)
        return { events: events.length, deliveries: made.length }
      })).pipe(
        Effect.tap(({ deliveries }) =>
          deliveries > 0 ? Effect.zipRight(Effect.sync(() => void deliveriesMadeCount++), deliveriesMade.notify) : Effect.void
        ),
        Effect.map(({ events }) => events),
        Effect.withSpan("WebhookDispatch.fanOut")
      )

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

    /** Sends one leased delivery and records the attempt; then what the answer means for the endpoint. */
    const attempt = (leased: LeasedDelivery, leaseToken: string) =>
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
      })

    /**
     * Leases up to `limit` due deliveries, sends them side by side and waits for them all: one
     * batch, start to end, for callers that want "send what is due now" (tests, tools). The worker
     * runs the delivery pump below instead. The batch is not interrupted: each send ends within the
     * delivery time-out. How many it sent.
     */
    const deliverDue = (limit: number, leaseMs: number) =>
      Effect.gen(function*() {
        const at = yield* now
        const leaseToken = yield* ids.next
        const leased = yield* deliveries.claimDue({
          now: at,
          limit,
          leaseToken,
          leasedUntil: new Date(at.getTime() + leaseMs)
        })
        yield* Effect.forEach(leased, (item) => attempt(item, leaseToken), { concurrency: "unbounded", discard: true })
        return leased.length
      }).pipe(Effect.uninterruptible, Effect.withSpan("WebhookDispatch.deliverDue"))

    /**
     * Forgets webhook history older than {@link WEBHOOK_HISTORY_RETENTION_MS}: finished deliveries
     * with their attempts, then dispatched events no delivery refers to. Up to `limit` of each;
     * how many rows it deleted.
     */
    const pruneHistory = (limit: number) =>
      Effect.gen(function*() {
        const before = new Date((yield* now).getTime() - WEBHOOK_HISTORY_RETENTION_MS)
        const deliveriesPruned = yield* deliveries.pruneFinished(before, limit)
        const eventsPruned = yield* outbox.pruneDispatched(before, limit)
        return Math.max(deliveriesPruned, eventsPruned)
      }).pipe(Effect.withSpan("WebhookDispatch.pruneHistory"))

    /**
     * Delivery as the worker runs it: up to `maxInFlight` sends at once, each on its own, so a slow
     * send holds only its own slot. Each run leases as many due deliveries as there are free slots
     * (up to `claimBatch`), passing over endpoints with `endpointInFlight` sends in flight, and
     * starts them; a send that ends, or deliveries fan-out made, wake it. Sends are not
     * interrupted: when the scope closes (the worker stops) it waits for those in flight.
     */
    const deliveryPump = (settings: typeof WebhookDispatchSettings.Service) =>
      Effect.gen(function*() {
        const sends = yield* FiberSet.make()
        const sendEnded = yield* makeWakeUp
        const leaseMs = Math.max(settings.leaseMs, MIN_LEASE_MS)
        // Touched only between effects of this worker's fibers, never across an await.
        const perEndpoint = new Map<WebhookEndpointId, number>()
        let inFlight = 0

        const started = (endpointId: WebhookEndpointId) => {
          inFlight += 1
          perEndpoint.set(endpointId, (perEndpoint.get(endpointId) ?? 0) + 1)
        }
        const ended = (endpointId: WebhookEndpointId) =>
          Effect.suspend(() => {
            inFlight -= 1
            const left = (perEndpoint.get(endpointId) ?? 1) - 1
            if (left === 0) perEndpoint.delete(endpointId)
            else perEndpoint.set(endpointId, left)
            return sendEnded.notify
          })

        /** The last claim that found less than it asked for, and the endpoints it passed over. */
        let lastShort: { readonly at: number; readonly skipped: string } | undefined
        let seenMade = deliveriesMadeCount

        const run = Effect.gen(function*() {
          const free = Math.min(settings.maxInFlight - inFlight, settings.claimBatch)
          // Slots are claimed a batch at a time while sends are in flight, not one by one as they end.
          if (free <= 0 || (inFlight > 0 && free < settings.claimBatch)) return 0
          const at = yield* now
          const skipEndpoints = [...perEndpoint].filter(([, n]) => n >= settings.endpointInFlight).map(([id]) => id)
          const skipped = [...skipEndpoints].sort().join()
          // Nothing was left to claim last time but the busy endpoints' deliveries: asking again is
          // worth it once one of them has room, fan-out made more, or a pause's worth of time passed.
          if (
            lastShort !== undefined && lastShort.skipped === skipped && seenMade === deliveriesMadeCount &&
            at.getTime() - lastShort.at < settings.deliveryIdleMs
          ) return 0
          seenMade = deliveriesMadeCount
          const leaseToken = yield* ids.next
          const leased = yield* deliveries.claimDue({
            now: at,
            limit: free,
            leaseToken,
            leasedUntil: new Date(at.getTime() + leaseMs),
            skipEndpoints
          })
          lastShort = leased.length < free ? { at: at.getTime(), skipped } : undefined
          for (const item of leased) {
            started(item.endpoint.id)
            yield* FiberSet.run(
              sends,
              attempt(item, leaseToken).pipe(Effect.ensuring(ended(item.endpoint.id)), Effect.uninterruptible)
            )
          }
          return leased.length
        }).pipe(Effect.uninterruptible)

        return { run, wake: Effect.raceFirst(deliveriesMade.wait, sendEnded.wait) }
      })

    /** The worker's webhook jobs, sized by {@link WebhookDispatchSettings}, for the life of the scope. */
    const jobs = Effect.gen(function*() {
      const settings = yield* WebhookDispatchSettings
      const pump = yield* deliveryPump(settings)
      return [
      {
        name: "webhook fan-out",
        run: fanOut(settings.fanOutBatch),
        batchSize: settings.fanOutBatch,
        lanes: 1,
        idleMs: settings.fanOutIdleMs,
        maxIdleMs: settings.fanOutMaxIdleMs
      },
      {
        name: "webhook delivery",
        run: pump.run,
        batchSize: 1,
        lanes: 1,
        idleMs: settings.deliveryIdleMs,
        maxIdleMs: settings.deliveryMaxIdleMs,
        wake: pump.wake
      },
      {
        name: "webhook history retention",
        run: pruneHistory(PRUNE_BATCH),
        batchSize: PRUNE_BATCH,
        lanes: 1,
        idleMs: PRUNE_INTERVAL_MS
      }
    ] satisfies ReadonlyArray<Job>
    })

    return { fanOut, deliverDue, pruneHistory, jobs } as const
  })
}) {}
