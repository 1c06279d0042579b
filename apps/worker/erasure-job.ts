import { Subscribers } from "@roster/application"
import { Effect } from "effect"
import { jobLayer } from "./job-runner.js"
import { WorkerSettings } from "./settings.js"

/**
 * Erasures subscribers asked for in the preference center, carried out batch by batch, each batch
 * in one transaction: a worker killed halfway leaves the batch for the next run.
 */
export const ErasureJob = jobLayer(Effect.gen(function*() {
  const subscribers = yield* Subscribers
  const settings = yield* WorkerSettings
  return {
    name: "subscriber erasure",
    run: subscribers.eraseRequested(settings.erasureBatch),
    batchSize: settings.erasureBatch,
    lanes: 1,
    idleMs: settings.erasureIdleMs
  }
}))
