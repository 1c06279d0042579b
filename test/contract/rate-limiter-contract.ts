import { expect, layer } from "@effect/vitest"
import { RateLimiter } from "@roster/application"
import { Clock, Effect, type Layer } from "effect"
import { randomUUID } from "node:crypto"

/** A key of its own for each test, so tests never count each other's requests. */
const aKey = () => `rate:contract:${randomUUID()}`

const consume = (key: string, limit: number, windowMs: number) =>
  Effect.flatMap(RateLimiter, (limiter) => limiter.consume(key, limit, windowMs))

/** How far apart two readings of one window's end may be: the time a request takes to answer. */
const SLACK_MS = 50

/**
 * What every rate limiter does, on real time: windows are short and really pass. Each decision
 * counts the request it answers.
 */
export const rateLimiterContract = (limiter: Layer.Layer<RateLimiter, unknown>) =>
  layer(limiter, { excludeTestServices: true })("RateLimiter", (it) => {
    it.effect("counts requests within a window, then refuses with nothing remaining until the window ends", () =>
      Effect.gen(function*() {
        const key = aKey()
        const windowMs = 5_000
        const startedAt = yield* Clock.currentTimeMillis
        const first = yield* consume(key, 3, windowMs)
        yield* Effect.sleep(100)
        const allowed = [first, yield* consume(key, 3, windowMs), yield* consume(key, 3, windowMs)]
        const refused = yield* consume(key, 3, windowMs)
        const finishedAt = yield* Clock.currentTimeMillis

        expect(allowed.map((d) => [d.allowed, d.limit, d.remaining])).toEqual([[true, 3, 2], [true, 3, 1], [true, 3, 0]])
        expect([refused.allowed, refused.limit, refused.remaining]).toEqual([false, 3, 0])
        // The window started with the first request and is not moved by later ones.
        expect(refused.resetAt.getTime()).toBeGreaterThan(finishedAt)
        expect(refused.resetAt.getTime()).toBeLessThanOrEqual(startedAt + windowMs + SLACK_MS)
        for (const decision of allowed) {
          expect(Math.abs(decision.resetAt.getTime() - refused.resetAt.getTime())).toBeLessThanOrEqual(SLACK_MS)
        }
      }))

    it.effect("a new window counts afresh once the last one has ended", () =>
      Effect.gen(function*() {
        const key = aKey()
        const windowMs = 300
        yield* consume(key, 2, windowMs)
        yield* consume(key, 2, windowMs)
        const refused = yield* consume(key, 2, windowMs)
        expect(refused).toMatchObject({ allowed: false, remaining: 0 })

        yield* Effect.sleep(refused.resetAt.getTime() - (yield* Clock.currentTimeMillis) + SLACK_MS)
        const beforeFresh = yield* Clock.currentTimeMillis
        const fresh = yield* consume(key, 2, windowMs)
        expect(fresh).toMatchObject({ allowed: true, limit: 2, remaining: 1 })
        expect(fresh.resetAt.getTime()).toBeGreaterThan(refused.resetAt.getTime())
        expect(fresh.resetAt.getTime()).toBeLessThanOrEqual(beforeFresh + windowMs + SLACK_MS)
      }))

    it.effect("keys are counted apart", () =>
      Effect.gen(function*() {
        const [busy, quiet] = [aKey(), aKey()]
        for (let i = 0; i < 2; i++) yield* consume(busy, 2, 60_000)
        expect((yield* consume(busy, 2, 60_000)).allowed).toBe(false)
        expect(yield* consume(quiet, 2, 60_000)).toMatchObject({ allowed: true, remaining: 1 })
      }))

    it.effect("of 50 requests at the same moment with a limit of 20, exactly 20 pass, each counted once", () =>
      Effect.gen(function*() {
        const key = aKey()
        const decisions = yield* Effect.all(Array.from({ length: 50 }, () => consume(key, 20, 60_000)), {
          concurrency: "unbounded"
        })
        const allowed = decisions.filter((d) => d.allowed)
        expect(allowed).toHaveLength(20)
        expect(allowed.map((d) => d.remaining).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i))
        for (const refused of decisions.filter((d) => !d.allowed)) expect(refused.remaining).toBe(0)
      }))

    it.effect("a hold lasts its time for everyone who asks, a shorter one does not cut it, and it ends", () =>
      Effect.gen(function*() {
        const limiter = yield* RateLimiter
        const [held, free] = [aKey(), aKey()]
        expect(yield* limiter.heldFor(held)).toBe(0)
        yield* limiter.hold(held, 400)
        yield* limiter.hold(held, 50)
        const left = yield* limiter.heldFor(held)
        expect(left).toBeGreaterThan(400 - SLACK_MS)
        expect(left).toBeLessThanOrEqual(400)
        expect(yield* limiter.heldFor(free)).toBe(0)
        yield* Effect.sleep(450)
        expect(yield* limiter.heldFor(held)).toBe(0)
      }))
  })
