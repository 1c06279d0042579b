import { Context, type Effect } from "effect"

export interface RateDecision {
  readonly allowed: boolean
  readonly limit: number
  readonly remaining: number
  /** When the window ends and the count starts again. */
  readonly resetAt: Date
}

/**
 * Counts requests per key in fixed windows. A store that cannot answer lets the request through
 * (fails open) and reports itself unhealthy instead; limits protect the service, they never stop it.
 */
export class RateLimiter extends Context.Tag("roster/RateLimiter")<RateLimiter, {
  readonly consume: (key: string, limit: number, windowMs: number) => Effect.Effect<RateDecision>
  /**
   * Holds `key` for `ms` from now, for every process that asks {@link heldFor} (a provider's
   * "slow down", say); a longer hold already on the key stays.
   */
  readonly hold: (key: string, ms: number) => Effect.Effect<void>
  /** How many milliseconds `key` is still held; 0 when it is not (or the store does not answer). */
  readonly heldFor: (key: string) => Effect.Effect<number>
}>() {}
