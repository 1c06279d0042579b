import { type AdaptiveRate, type RateDecision, RateLimiter } from "@roster/application"
import { Clock, Effect, Layer } from "effect"
import { ExpiringEntries, type ExpiringEntriesOptions } from "./expiring-entries.js"

interface Window {
  count: number
  readonly resetAtMs: number
}

export type FixedWindowsOptions = ExpiringEntriesOptions

/**
 * Request counts per key in fixed windows that start at a key's first request, as Redis does with
 * INCR and PEXPIRE. Ended windows are swept and the number of keys is capped (see
 * {@link ExpiringEntries}); a key whose window was dropped starts counting again.
 */
export class FixedWindows {
  private readonly windows: ExpiringEntries<Window>

  constructor(options: FixedWindowsOptions = {}) {
    this.windows = new ExpiringEntries(options)
  }

  /** How many keys are counted now (windows that ended and were not yet swept included). */
  get size(): number {
    return this.windows.size
  }

  consume(key: string, limit: number, windowMs: number, nowMs: number): RateDecision {
    let window = this.windows.get(key, nowMs)
    if (window === undefined) {
      window = { count: 0, resetAtMs: nowMs + Math.max(1, windowMs) }
      this.windows.set(key, window, window.resetAtMs, nowMs)
    }
    const allowed = window.count < limit
    if (allowed) window.count += 1
    return {
      allowed,
      limit,
      remaining: Math.max(0, limit - window.count),
      resetAt: new Date(window.resetAtMs)
    }
  }
}

/** A rate limiter over the given windows, on Effect's Clock (the TestClock in tests). */
export const makeInProcessRateLimiter = (windows: FixedWindows): Layer.Layer<RateLimiter> =>
  Layer.sync(RateLimiter, () => {
    /** Each held key and when its hold ends; few keys are ever held, and an ended hold is dropped when read. */
    const holds = new Map<string, number>()
    /** Each lowered adaptive rate, when it was last halved and last touched; a rate back at its most is dropped. */
    const rates = new Map<string, { rate: number; halvedAtMs: number; touchedAtMs: number }>()
    const lowered = (key: string, rate: AdaptiveRate, nowMs: number) => {
      const kept = rates.get(key)
      if (kept === undefined || nowMs - kept.touchedAtMs >= rate.forgetMs) {
        rates.delete(key)
        return undefined
      }
      return kept
    }
    const keep = (key: string, rate: AdaptiveRate, value: number, halvedAtMs: number, nowMs: number) => {
      if (value >= rate.max) rates.delete(key)
      else rates.set(key, { rate: value, halvedAtMs, touchedAtMs: nowMs })
      return Math.min(value, rate.max)
    }
    return RateLimiter.of({
      consume: (key, limit, windowMs) =>
        Effect.map(Clock.currentTimeMillis, (nowMs) => windows.consume(key, limit, windowMs, nowMs)),
      hold: (key, ms) =>
        Effect.map(Clock.currentTimeMillis, (nowMs) => {
          holds.set(key, Math.max(holds.get(key) ?? 0, nowMs + Math.max(0, ms)))
        }),
      heldFor: (key) =>
        Effect.map(Clock.currentTimeMillis, (nowMs) => {
          const left = (holds.get(key) ?? 0) - nowMs
          if (left <= 0) holds.delete(key)
          return Math.max(0, left)
        }),
      rateOf: (key, rate) =>
        Effect.map(Clock.currentTimeMillis, (nowMs) => {
          const kept = lowered(key, rate, nowMs)
          return kept === undefined ? rate.max : Math.max(rate.min, Math.min(kept.rate, rate.max))
        }),
      slowDown: (key, rate) =>
        Effect.map(Clock.currentTimeMillis, (nowMs) => {
          const kept = lowered(key, rate, nowMs)
          const now = Math.min(kept?.rate ?? rate.max, rate.max)
          if (kept !== undefined && nowMs - kept.halvedAtMs < rate.settleMs) {
            return keep(key, rate, now, kept.halvedAtMs, nowMs)
          }
          return keep(key, rate, Math.max(rate.min, now / 2), nowMs, nowMs)
        }),
      speedUp: (key, rate) =>
        Effect.map(Clock.currentTimeMillis, (nowMs) => {
          const kept = lowered(key, rate, nowMs)
          if (kept === undefined) return rate.max
          return keep(key, rate, Math.min(rate.max, kept.rate + rate.step), kept.halvedAtMs, nowMs)
        })
    })
  })

/**
 * Rate limits kept in this process: for a single process without Redis. Each build of the layer
 * counts afresh.
 */
export const InProcessRateLimiterLive: Layer.Layer<RateLimiter> = Layer.unwrapEffect(
  Effect.sync(() => makeInProcessRateLimiter(new FixedWindows()))
)
