import { Effect, Scheduler } from "effect"

/** Rows a long loop goes through between two `letOthersRun`. */
export const ROWS_BETWEEN_TURNS = 250

/**
 * Lets the process's other work run: replies from the network that other fibers wait on, and
 * the fibers they wake. A fiber that only yields (`Effect.yieldNow`) comes back before any of
 * the process's input and output is looked at; this one comes back on a timer, after it.
 */
export const letOthersRun: Effect.Effect<void> = Effect.yieldNow().pipe(Effect.withScheduler(Scheduler.timer(0)))
