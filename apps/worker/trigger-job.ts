import { TriggerFiring } from "@roster/application"
import { Effect } from "effect"
import { jobLayer } from "./job-runner.js"
import { WorkerSettings } from "./settings.js"

/**
 * Email triggers: firings whose wait is over become queued emails, which the email lanes send.
 * Firings are made by the webhook fan-out from the same recorded events.
 */
export const TriggerJob = jobLayer(Effect.gen(function*() {
  const firing = yield* TriggerFiring
  const settings = yield* WorkerSettings
  return {
    name: "email triggers",
    run: firing.fireDue(settings.triggerBatch, settings.leaseMs).pipe(Effect.uninterruptible),
    batchSize: settings.triggerBatch,
    lanes: 1,
    idleMs: settings.triggerIdleMs,
    maxIdleMs: settings.triggerMaxIdleMs
  }
}))
