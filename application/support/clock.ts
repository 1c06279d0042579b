import { Clock, Effect } from "effect"

/** The current instant, to the millisecond, from Effect's Clock (the TestClock in tests). */
export const now: Effect.Effect<Date> = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))
