import { WebhookDispatch } from "@roster/application"
import type { WebhookEndpointId } from "@roster/domain"
import { Clock, Context, Effect, FiberSet, Layer } from "effect"
import { jobLayer, makeWakeUp, type WakeUp } from "./job-runner.js"
import { WorkerSettings } from "./settings.js"

/**
 * The webhook jobs of a worker: fan-out makes deliveries of recorded events, delivery sends them
 * (each on its own, within limits per worker and per endpoint), retention forgets old history.
 */

/** Fan-out tells delivery, in the same worker, that it made deliveries. */
class DeliveriesMade extends Context.Tag("roster/worker/DeliveriesMade")<DeliveriesMade, WakeUp & {
  /** How many fan-outs made deliveries so far: a claim is worth repeating once this moves. */
  readonly count: () => number
}>() {}

const DeliveriesMadeLive = Layer.effect(
  DeliveriesMade,
  Effect.map(makeWakeUp, (wakeUp) => {
    let count = 0
    return {
      notify: Effect.zipRight(Effect.sync(() => void count++), wakeUp.notify),
      wait: wakeUp.wait,
      count: () => count
    }
  })
)

const WebhookFanOutJob = jobLayer(Effect.gen(function*() {
  const dispatch = yield* WebhookDispatch
  const settings = yield* WorkerSettings
  const made = yield* DeliveriesMade
  return {
    name: "webhook fan-out",
    run: dispatch.fanOut(settings.fanOutBatch).pipe(
      Effect.tap(({ deliveries }) => deliveries > 0 ? made.notify : Effect.void),
      Effect.map(({ events }) => events)
    ),
    batchSize: settings.fanOutBatch,
    lanes: 1,
    idleMs: settings.fanOutIdleMs,
    maxIdleMs: settings.fanOutMaxIdleMs
  }
}))

/**
 * Delivery: up to `maxInFlight` sends at once, each on its own, so a slow send holds only its own
 * slot. Each run leases as many due deliveries as there are free slots (up to `claimBatch`),
 * passing over endpoints with `endpointInFlight` sends in flight, and starts them; a send that
 * ends, or deliveries fan-out made, wake it. Sends are not interrupted: when the worker stops it
 * waits for those in flight.
 */
const WebhookDeliveryJob = jobLayer(Effect.gen(function*() {
  const dispatch = yield* WebhookDispatch
  const settings = yield* WorkerSettings
  const made = yield* DeliveriesMade
  const sends = yield* FiberSet.make()
  const sendEnded = yield* makeWakeUp
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
  let seenMade = made.count()

  const run = Effect.gen(function*() {
    const free = Math.min(settings.maxInFlight - inFlight, settings.claimBatch)
    // Slots are claimed a batch at a time while sends are in flight, not one by one as they end.
    if (free <= 0 || (inFlight > 0 && free < settings.claimBatch)) return 0
    const at = yield* Clock.currentTimeMillis
    const skipEndpoints = [...perEndpoint].filter(([, n]) => n >= settings.endpointInFlight).map(([id]) => id)
    const skipped = [...skipEndpoints].sort().join()
    // Nothing was left to claim last time but the busy endpoints' deliveries: asking again is
    // worth it once one of them has room, fan-out made more, or a pause's worth of time passed.
    if (
      lastShort !== undefined && lastShort.skipped === skipped && seenMade === made.count() &&
      at - lastShort.at < settings.deliveryIdleMs
    ) return 0
    seenMade = made.count()
    const { leaseToken, leased } = yield* dispatch.claimDue({ limit: free, leaseMs: settings.leaseMs, skipEndpoints })
    lastShort = leased.length < free ? { at, skipped } : undefined
    for (const item of leased) {
      started(item.endpoint.id)
      yield* FiberSet.run(
        sends,
        dispatch.attempt(item, leaseToken).pipe(Effect.ensuring(ended(item.endpoint.id)), Effect.uninterruptible)
      )
    }
    return leased.length
  }).pipe(Effect.uninterruptible)

  return {
    name: "webhook delivery",
    run,
    batchSize: 1,
    lanes: 1,
    idleMs: settings.deliveryIdleMs,
    maxIdleMs: settings.deliveryMaxIdleMs,
    wake: Effect.raceFirst(made.wait, sendEnded.wait)
  }
}))

const WebhookRetentionJob = jobLayer(Effect.gen(function*() {
  const dispatch = yield* WebhookDispatch
  const settings = yield* WorkerSettings
  return {
    name: "webhook history retention",
    run: dispatch.pruneHistory(settings.pruneBatch),
    batchSize: settings.pruneBatch,
    lanes: 1,
    idleMs: settings.pruneIntervalMs
  }
}))

/** Every webhook job, sized by {@link WorkerSettings}. */
export const WebhookJobsLive = Layer.mergeAll(WebhookFanOutJob, WebhookDeliveryJob, WebhookRetentionJob).pipe(
  Layer.provide(DeliveriesMadeLive)
)
