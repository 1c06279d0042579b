import { Context, type Effect } from "effect"

export interface RateDecision {
  readonly allowed: boolean
  readonly limit: number
  readonly remaining: number
  /** When the window ends and the count starts again. */
  readonly resetAt: Date
}

/**
 * The shape of a rate that slows down when pushed back and grows back as calls succeed
 * (additive increase, multiplicative decrease), in calls a second.
 */
export interface AdaptiveRate {
  /** The rate asked for: where it starts, and the most it grows back to. */
  readonly max: number
  /** The least it falls to. */
  readonly min: number
  /** Added on each success. */
  readonly step: number
  /**
   * Within this many milliseconds of a halving, pushback halves it no further: calls that were
   * under way together are answered together.
   */
  readonly settleMs: number
  /** Untouched for this long, the rate is forgotten: back to `max`. */
  readonly forgetMs: number
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
  /**
   * The adaptive rate kept under `key`, the same for every process that asks: `rate.max` until
   * {@link slowDown} lowers it (and when the store does not answer).
   */
  readonly rateOf: (key: string, rate: AdaptiveRate) => Effect.Effect<number>
  /** Halves the rate under `key`, down to `rate.min`, unless it was halved within `rate.settleMs`; the rate now. */
  readonly slowDown: (key: string, rate: AdaptiveRate) => Effect.Effect<number>
  /** Adds `rate.step` to the rate under `key`, up to `rate.max`; the rate now. */
  readonly speedUp: (key: string, rate: AdaptiveRate) => Effect.Effect<number>
}>() {}
