import { Cause, Duration, Effect, FiberRef, Layer, Schedule, type Scope } from "effect"

import { workerBatches, workerClaims, workerWakeUps } from "../../adapters/observability/index.js"

export { makeWakeUp, type WakeUp } from "@roster/application"

/**
 * Background work that a worker repeats, each job a use case run batch after batch. A job claims
 * its own work from the database, so any number of workers can run the same job side by side.
 */
export interface Job {
  readonly name: string
  /**
   * Does one batch of due work and says how many items it handled. It should not be interrupted
   * halfway (make it uninterruptible): a worker told to stop waits for the batch in hand.
   */
  readonly run: Effect.Effect<number>
  /** A batch this size means more may be waiting: the next runs at once. */
  readonly batchSize: number
  /** Batches of this job in flight at once in one worker. */
  readonly lanes: number
  /** The pause after a batch that found less than a full batch. */
  readonly idleMs: number
  /**
   * While batches keep finding nothing, each pause doubles, up to this (`idleMs` unless told): an
   * idle worker asks the database rarely, and a worker with work asks again at once.
   */
  readonly maxIdleMs?: number
  /** Completes when new work may be waiting: the pause ends early (another job made work for this one). */
  readonly wake?: Effect.Effect<void>
}

/** After a failed batch the lane waits 1 s, doubling up to a minute, until a batch succeeds. */
const afterFailure = Schedule.exponential(Duration.seconds(1)).pipe(
  Schedule.union(Schedule.spaced(Duration.minutes(1)))
)

/**
 * The pause after the `emptyRuns`-th batch in a row that found nothing (0 when the last found some).
 * A pause ended by `wake` is counted (`roster_worker_wake_ups_total`).
 */
const pause = (job: Job, emptyRuns: number): Effect.Effect<void> => {
  const ms = Math.min(job.idleMs * 2 ** Math.max(0, emptyRuns - 1), Math.max(job.maxIdleMs ?? job.idleMs, job.idleMs))
  if (job.wake === undefined) return Effect.sleep(ms)
  const woken = Effect.zipRight(job.wake, Effect.sync(() => void workerWakeUps.inc({ job: job.name })))
  return Effect.raceFirst(Effect.sleep(ms), woken)
}

/**
 * One lane of a job: batch after batch, pausing when there was little to do. Where the tracer is
 * on, each batch is a trace of its own (`job webhook delivery`), its statements and use cases in it.
 */
const lane = (job: Job, traced: boolean): Effect.Effect<never> => {
  const run = traced ? Effect.withSpan(job.run, `job ${job.name}`, { root: true, captureStackTrace: false }) : job.run
  const counted = Effect.tap(run, (handled) =>
    Effect.sync(() => {
      workerBatches.inc({ job: job.name })
      if (handled > 0) workerClaims.inc({ job: job.name }, handled)
    }))
  const batch = counted.pipe(
    Effect.tapErrorCause((cause) =>
      Effect.logError(`job ${job.name} failed; it will try again`).pipe(Effect.annotateLogs({ cause: Cause.pretty(cause) }))
    ),
    Effect.sandbox,
    Effect.retry(afterFailure),
    Effect.orDie
  )
  const next = (emptyRuns: number): Effect.Effect<number> =>
    Effect.flatMap(batch, (handled) => {
      if (handled >= job.batchSize) return Effect.as(Effect.yieldNow(), 0)
      const empty = handled === 0 ? emptyRuns + 1 : 0
      return Effect.as(pause(job, empty), empty)
    })
  return Effect.iterate(0, { while: () => true, body: next }).pipe(Effect.zipRight(Effect.never))
}

/**
 * Runs every lane of every job until interrupted. Interruption reaches a lane between batches (or
 * in its pause), so stopping waits only for the batches in hand.
 */
export const runJobs = (jobs: ReadonlyArray<Job>): Effect.Effect<never> =>
  Effect.flatMap(FiberRef.get(FiberRef.currentTracerEnabled), (traced) =>
    Effect.forEach(
      jobs.flatMap((job) => Array.from({ length: Math.max(1, job.lanes) }, () => job)),
      (job) => lane(job, traced),
      { concurrency: "unbounded", discard: true }
    )).pipe(Effect.zipRight(Effect.never))

/**
 * A job as a layer: made when the layer is built (with whatever it needs for the life of the
 * worker), run in the background while the layer lives, and stopped, between batches, when it is
 * released. A worker is the layers of its jobs, merged.
 */
export const jobLayer = <E, R>(make: Effect.Effect<Job, E, R | Scope.Scope>): Layer.Layer<never, E, Exclude<R, Scope.Scope>> =>
  Layer.scopedDiscard(
    Effect.flatMap(make, (job) =>
      Effect.zipRight(Effect.forkScoped(runJobs([job])), Effect.logDebug(`job running: ${job.name}`)))
  )
