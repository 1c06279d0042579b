import { RateLimiter } from "@roster/application"
import { describe, expect, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { FixedWindows, InProcessRateLimiterLive, makeInProcessRateLimiter } from "../../adapters/in-process/index.js"

const MINUTE = 60_000

const consume = (key: string, limit = 3, windowMs = MINUTE) =>
  Effect.flatMap(RateLimiter, (limiter) => limiter.consume(key, limit, windowMs))

/** Where the TestClock stands, as a date. */
const clockAt = (ms: number) => new Date(ms)

describe("in-process rate limiter", () => {
  it.effect("counts down to the limit, then refuses with nothing remaining until the window ends", () =>
    Effect.gen(function*() {
      yield* TestClock.adjust(5_000)
      const decisions = [yield* consume("org-a"), yield* consume("org-a"), yield* consume("org-a")]
      expect(decisions.map((d) => [d.allowed, d.remaining])).toEqual([[true, 2], [true, 1], [true, 0]])
      yield* TestClock.adjust(30_000)
      const refused = yield* consume("org-a")
      expect(refused).toEqual({ allowed: false, limit: 3, remaining: 0, resetAt: clockAt(5_000 + MINUTE) })
      for (const decision of decisions) expect(decision.resetAt).toEqual(clockAt(5_000 + MINUTE))
    }).pipe(Effect.provide(InProcessRateLimiterLive)))

  it.effect("a new window starts counting afresh", () =>
    Effect.gen(function*() {
      for (let i = 0; i < 4; i++) yield* consume("org-a")
      yield* TestClock.adjust(MINUTE - 1)
      expect((yield* consume("org-a")).allowed).toBe(false)
      yield* TestClock.adjust(1)
      const fresh = yield* consume("org-a")
      expect(fresh).toEqual({ allowed: true, limit: 3, remaining: 2, resetAt: clockAt(2 * MINUTE) })
    }).pipe(Effect.provide(InProcessRateLimiterLive)))

  it.effect("keys are counted apart", () =>
    Effect.gen(function*() {
      for (let i = 0; i < 3; i++) yield* consume("sign-in:ip:203.0.113.7")
      expect((yield* consume("sign-in:ip:203.0.113.7")).allowed).toBe(false)
      const other = yield* consume("sign-in:ip:203.0.113.8")
      expect(other).toMatchObject({ allowed: true, remaining: 2 })
    }).pipe(Effect.provide(InProcessRateLimiterLive)))

  it.effect("requests at the same moment never pass the limit together", () =>
    Effect.gen(function*() {
      const decisions = yield* Effect.all(Array.from({ length: 50 }, () => consume("org-a", 5)), {
        concurrency: "unbounded"
      })
      expect(decisions.filter((d) => d.allowed)).toHaveLength(5)
    }).pipe(Effect.provide(InProcessRateLimiterLive)))

  it.effect("each build of the layer counts afresh", () =>
    Effect.gen(function*() {
      for (let i = 0; i < 3; i++) yield* consume("org-a").pipe(Effect.provide(InProcessRateLimiterLive))
      expect((yield* consume("org-a").pipe(Effect.provide(InProcessRateLimiterLive))).allowed).toBe(true)
    }))

  it.effect("windows that have ended are swept away, so memory is given back", () => {
    const windows = new FixedWindows({ sweepIntervalMs: 1_000 })
    return Effect.gen(function*() {
      for (let i = 0; i < 1_000; i++) yield* consume(`ip-${i}`)
      expect(windows.size).toBe(1_000)
      yield* TestClock.adjust(MINUTE)
      yield* consume("ip-new")
      expect(windows.size).toBe(1)
    }).pipe(Effect.provide(makeInProcessRateLimiter(windows)))
  })

  it.effect("windows still running are kept by the sweep", () => {
    const windows = new FixedWindows({ sweepIntervalMs: 1_000 })
    return Effect.gen(function*() {
      yield* consume("short", 3, 1_000)
      yield* consume("long", 3, MINUTE)
      yield* TestClock.adjust(2_000)
      yield* consume("another")
      expect(windows.size).toBe(2)
      expect((yield* consume("long")).remaining).toBe(1)
    }).pipe(Effect.provide(makeInProcessRateLimiter(windows)))
  })

  it.effect("past the cap on keys, the oldest windows are dropped and those keys are let through", () => {
    const windows = new FixedWindows({ maxKeys: 100 })
    return Effect.gen(function*() {
      for (let i = 0; i < 3; i++) yield* consume("ip-0")
      expect((yield* consume("ip-0")).allowed).toBe(false)
      for (let i = 1; i <= 250; i++) yield* consume(`ip-${i}`)
      expect(windows.size).toBe(100)
      expect((yield* consume("ip-0")).allowed).toBe(true)
      expect(windows.size).toBe(100)
    }).pipe(Effect.provide(makeInProcessRateLimiter(windows)))
  })
})
