import { SequenceEngine } from "@roster/application"
import { Effect } from "effect"
import { jobLayer } from "./job-runner.js"
import { WorkerSettings } from "./settings.js"

/**
 * Sequences: due enrollments taken in batches under a row lock, each run up to its next wait or
 * its end in the transaction that took it. Enrollments are made by the webhook fan-out from the
 * same recorded events, and through the API.
 */
export const SequenceJob = jobLayer(Effect.gen(function*() {
  const engine = yield* SequenceEngine
  const settings = yield* WorkerSettings
  return {
    name: "sequences",
    run: engine.runDue(settings.sequenceBatch).pipe(Effect.uninterruptible),
    batchSize: settings.sequenceBatch,
    lanes: 1,
    idleMs: settings.sequenceIdleMs,
    maxIdleMs: settings.sequenceMaxIdleMs
  }
}))
