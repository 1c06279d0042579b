import { type RateDecision, RateLimiter } from "@roster/application"
import { Clock, Effect, Layer } from "effect"

interface Window {
  count: number
  readonly resetAtMs: number
}

export interface FixedWindowsOptions {
  /** How often, at most, windows that have ended are swept away. */
  readonly sweepIntervalMs?: number
  /**
   * How many keys are kept at most. Past it, the oldest windows are dropped early: those keys
   * start counting again, which lets requests through rather than refusing them.
   */
  readonly maxKeys?: number
}

/**
 * Request counts per key in fixed windows that start at a key's first request, as Redis does with
 * INCR and PEXPIRE. Windows that have ended are swept away as time passes, and the number of keys
 * is capped, so the map cannot grow without bound.
 */
export class FixedWindows {
  private readonly windows = new Map<string, Window>()
  private readonly sweepIntervalMs: number
  private readonly maxKeys: number
  private nextSweepAtMs = 0

  constructor(options: FixedWindowsOptions = {}) {
    this.sweepIntervalMs = Math.max(1, options.sweepIntervalMs ?? 60_000)
    this.maxKeys = Math.max(1, options.maxKeys ?? 100_000)
  }

  /** How many keys are counted now (windows that ended and were not yet swept included). */
  get size(): number {
    return this.windows.size
  }

  consume(key: string, limit: number, windowMs: number, nowMs: number): RateDecision {
    this.sweep(nowMs)
    let window = this.windows.get(key)
    if (window === undefined || window.resetAtMs <= nowMs) {
      // Re-inserting keeps the map in order of window start, oldest first, for eviction.
      this.windows.delete(key)
      window = { count: 0, resetAtMs: nowMs + Math.max(1, windowMs) }
      this.windows.set(key, window)
      this.evictOverflow()
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

  private sweep(nowMs: number): void {
    if (nowMs < this.nextSweepAtMs) return
    this.nextSweepAtMs = nowMs + this.sweepIntervalMs
    for (const [key, window] of this.windows) {
      if (window.resetAtMs <= nowMs) this.windows.delete(key)
    }
  }

  private evictOverflow(): void {
    for (const key of this.windows.keys()) {
      if (this.windows.size <= this.maxKeys) return
      this.windows.delete(key)
    }
  }
}

/** A rate limiter over the given windows, on Effect's Clock (the TestClock in tests). */
export const makeInProcessRateLimiter = (windows: FixedWindows): Layer.Layer<RateLimiter> =>
  Layer.succeed(
    RateLimiter,
    RateLimiter.of({
      consume: (key, limit, windowMs) =>
        Effect.map(Clock.currentTimeMillis, (nowMs) => windows.consume(key, limit, windowMs, nowMs))
    })
  )

/**
 * Rate limits kept in this process: for a single process without Redis. Each build of the layer
 * counts afresh.
 */
export const InProcessRateLimiterLive: Layer.Layer<RateLimiter> = Layer.unwrapEffect(
  Effect.sync(() => makeInProcessRateLimiter(new FixedWindows()))
)
