import { EmailDelivery, WorkSignal } from "@roster/application"
import { Effect } from "effect"
import { jobLayer } from "./job-runner.js"
import { WorkerSettings } from "./settings.js"

/**
 * Email delivery: lanes that each lease a due batch and hand it to the provider, within the
 * provider's rate shared by every worker. A send anywhere wakes them at once; retries that come
 * due are found by the pauses' look at the queue.
 */
export const EmailJob = jobLayer(Effect.gen(function*() {
  const delivery = yield* EmailDelivery
  const signal = yield* WorkSignal
  const settings = yield* WorkerSettings
  return {
    name: "email delivery",
    run: delivery.deliverNext({
      batchSize: settings.emailBatch,
      leaseMs: settings.leaseMs,
      providerRate: settings.providerRate
    }).pipe(Effect.uninterruptible),
    batchSize: 1,
    lanes: settings.emailLanes,
    idleMs: settings.emailIdleMs,
    maxIdleMs: settings.emailMaxIdleMs,
    wake: signal.awaitEmailQueued
  }
}))
