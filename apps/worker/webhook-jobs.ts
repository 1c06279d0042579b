import { WebhookDeliveryScheduler, WebhookDispatch } from "@roster/application"
import { Effect, Layer } from "effect"
import { jobLayer } from "./job-runner.js"
import { WorkerSettings } from "./settings.js"

/**
 * The webhook jobs of a worker: fan-out makes deliveries of recorded events, delivery sends them
 * (each on its own, within limits per worker and per endpoint, as {@link WebhookDeliveryScheduler}
 * schedules them), retention forgets old history.
 */

const WebhookFanOutJob = jobLayer(Effect.gen(function*() {
  const scheduler = yield* WebhookDeliveryScheduler
  const settings = yield* WorkerSettings
  return {
    name: "webhook fan-out",
    run: Effect.map(scheduler.fanOut(settings.fanOutBatch), ({ events }) => events),
    batchSize: settings.fanOutBatch,
    lanes: 1,
    idleMs: settings.fanOutIdleMs,
    maxIdleMs: settings.fanOutMaxIdleMs
  }
}))

const WebhookDeliveryJob = jobLayer(Effect.gen(function*() {
  const scheduler = yield* WebhookDeliveryScheduler
  const settings = yield* WorkerSettings
  return {
    name: "webhook delivery",
    run: scheduler.sendDue({
      maxInFlight: settings.maxInFlight,
      endpointInFlight: settings.endpointInFlight,
      claimBatch: settings.claimBatch,
      leaseMs: settings.leaseMs,
      recheckMs: settings.deliveryIdleMs
    }),
    batchSize: 1,
    lanes: 1,
    idleMs: settings.deliveryIdleMs,
    maxIdleMs: settings.deliveryMaxIdleMs,
    wake: scheduler.wake
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

/** Every webhook job, sized by {@link WorkerSettings}, over one scheduler of this worker's sends. */
export const WebhookJobsLive = Layer.mergeAll(WebhookFanOutJob, WebhookDeliveryJob, WebhookRetentionJob).pipe(
  Layer.provide(WebhookDeliveryScheduler.Default)
)
