import { Context, type Effect } from "effect"

/**
 * Tells workers, in this process or in others, that email was queued, so that it goes out at once
 * rather than at the next look at the queue.
 */
export class WorkSignal extends Context.Tag("roster/WorkSignal")<WorkSignal, {
  readonly emailQueued: Effect.Effect<void>
  /** Completes at the next signal, or at once if one came since the last wait ended. */
  readonly awaitEmailQueued: Effect.Effect<void>
}>() {}
