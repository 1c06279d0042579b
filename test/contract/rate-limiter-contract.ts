import { expect, layer } from "@effect/vitest"
import { type AdaptiveRate, RateLimiter } from "@roster/application"
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

    const adaptive: AdaptiveRate = { max: 8, min: 1, step: 2, settleMs: 300, forgetMs: 60_000 }

    it.effect("an adaptive rate halves on pushback, once for pushback that comes together, to its least, and grows back a step a success", () =>
      Effect.gen(function*() {
        const limiter = yield* RateLimiter
        const [key, other] = [aKey(), aKey()]
        expect(yield* limiter.rateOf(key, adaptive)).toBe(8)
        // A success at the most changes nothing.
        expect(yield* limiter.speedUp(key, adaptive)).toBe(8)
        expect(yield* limiter.slowDown(key, adaptive)).toBe(4)
        expect(yield* limiter.slowDown(key, adaptive)).toBe(4)
        expect(yield* limiter.rateOf(key, adaptive)).toBe(4)
        expect(yield* limiter.rateOf(other, adaptive)).toBe(8)
        const halvings = []
        for (let i = 0; i < 3; i++) {
          yield* Effect.sleep(adaptive.settleMs + SLACK_MS)
          halvings.push(yield* limiter.slowDown(key, adaptive))
        }
        expect(halvings).toEqual([2, 1, 1])
        const steps = []
        for (let i = 0; i < 5; i++) steps.push(yield* limiter.speedUp(key, adaptive))
        expect(steps).toEqual([3, 5, 7, 8, 8])
        expect(yield* limiter.rateOf(key, adaptive)).toBe(8)
        // Halving again needs no wait once it is back at its most.
        expect(yield* limiter.slowDown(key, adaptive)).toBe(4)
      }))

    it.effect("an adaptive rate left alone long enough is back at its most", () =>
      Effect.gen(function*() {
        const limiter = yield* RateLimiter
        const key = aKey()
        const forgetful = { ...adaptive, forgetMs: 300 }
        expect(yield* limiter.slowDown(key, forgetful)).toBe(4)
        expect(yield* limiter.rateOf(key, forgetful)).toBe(4)
        yield* Effect.sleep(forgetful.forgetMs + SLACK_MS * 2)
        expect(yield* limiter.rateOf(key, forgetful)).toBe(8)
        expect(yield* limiter.slowDown(key, forgetful)).toBe(4)
      }))
  })
