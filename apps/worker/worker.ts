import { Effect, Layer } from "effect"

/**
 * The background worker. It runs until the process is told to stop (SIGTERM or SIGINT), then
 * lets the work in hand finish. Jobs join it as the capabilities that need them arrive.
 */
export const WorkerLive = Layer.scopedDiscard(
  Effect.addFinalizer(() => Effect.logInfo("worker stopped"))
)
