import { SequenceEngine } from "@roster/application"
import { Effect } from "effect"
import { jobLayer } from "./job-runner.js"
import { WorkerSettings } from "./settings.js"

/**
 * Sequences: due enrollments taken in batches under a row lock, each run up to its next wait or
 * its end in the transaction that took it. Enrollments are made by the webhook fan-out from the
 * same recorded events, and through the API. Three lanes: while one batch waits for the database,
 * another's steps are worked out and its emails rendered. Their batches take different enrollments
 * (the claim skips locked rows) and count their emails outside their transactions, so no lane
 * waits for another's commit; on two cores a third lane moved 100,000 due steps 4 to 16 % faster
 * than two, in runs alternated with them.
 */
const SEQUENCE_LANES = 3

export const SequenceJob = jobLayer(Effect.gen(function*() {
  const engine = yield* SequenceEngine
  const settings = yield* WorkerSettings
  return {
    name: "sequences",
    run: engine.runDue(settings.sequenceBatch).pipe(Effect.uninterruptible),
    batchSize: settings.sequenceBatch,
    lanes: SEQUENCE_LANES,
    idleMs: settings.sequenceIdleMs,
    maxIdleMs: settings.sequenceMaxIdleMs
  }
}))
