import { ImportJobs } from "@roster/application"
import { Effect } from "effect"
import { jobLayer } from "./job-runner.js"
import { WorkerSettings } from "./settings.js"

/**
 * Imports sent over HTTP: each lane takes the oldest waiting import (or one whose worker's lease
 * ran out) and runs it to its end, a batch at a time, its progress saved with each batch. A worker
 * told to stop finishes the batch in hand and puts the import back in the queue for another; a
 * killed worker's import is taken over once its lease runs out.
 */
export const ImportJob = jobLayer(Effect.gen(function*() {
  const imports = yield* ImportJobs
  const settings = yield* WorkerSettings
  return {
    name: "subscriber imports",
    // Interruptible between batches (each batch is not): stopping waits for the batch in hand only.
    run: imports.runNext(settings.leaseMs),
    batchSize: 1,
    lanes: settings.importLanes,
    idleMs: settings.importIdleMs,
    maxIdleMs: settings.importMaxIdleMs
  }
}))

/** Ended imports' problem rows, which name addresses, dropped once they are 30 days old: a batch of imports at a time. */
export const ImportProblemRetentionJob = jobLayer(Effect.gen(function*() {
  const imports = yield* ImportJobs
  const settings = yield* WorkerSettings
  return {
    name: "import problem retention",
    run: imports.pruneProblems(settings.importPruneBatch),
    batchSize: settings.importPruneBatch,
    lanes: 1,
    idleMs: settings.pruneIntervalMs
  }
}))
