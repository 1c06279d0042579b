import { runJobs, WebhookDispatch, WebhookDispatchSettings } from "@roster/application"
import { Effect, Layer } from "effect"
import type { RosterConfig } from "../shared/config.js"

/**
 * The background worker: every job in its lanes, until the process is told to stop (SIGTERM or
 * SIGINT). Then it takes no new work and finishes the batches in hand; work a killed worker held
 * comes due again for the others when its lease runs out.
 */
export const WorkerLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    // Finalizers run last first: the jobs stop taking work, the sends in flight end, then this line.
    yield* Effect.addFinalizer(() => Effect.logInfo("worker stopped"))
    const jobs = yield* Effect.flatMap(WebhookDispatch, (dispatch) => dispatch.jobs)
    yield* Effect.forkScoped(runJobs(jobs))
    yield* Effect.logDebug(`worker running: ${jobs.map((job) => job.name).join(", ")}`)
  })
)

/** How the worker's jobs are sized, from the configuration. */
export const workerSettingsLayer = (config: RosterConfig) =>
  Layer.effect(
    WebhookDispatchSettings,
    Effect.map(WebhookDispatchSettings, (defaults) => ({ ...defaults, leaseMs: config.workerLeaseSeconds * 1000 }))
  )
