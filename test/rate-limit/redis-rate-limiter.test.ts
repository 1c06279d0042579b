import { describe, expect, it } from "@effect/vitest"
import { RateLimiter } from "@roster/application"
import { Context, Effect, Layer, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import { makeRedisClient, RedisClient, RedisRateLimiterLive } from "../../adapters/redis/index.js"
import { redis } from "../support/servers.js"

const url = Redacted.make(redis.url ?? "")

/** A process of its own: a Redis connection with the run's key prefix and a limiter over it. */
const aProcess = Effect.map(
  Layer.build(RedisRateLimiterLive.pipe(Layer.provideMerge(makeRedisClient(url, { keyPrefix: redis.prefix })))),
  (context) => ({ limiter: Context.get(context, RateLimiter), redis: Context.get(context, RedisClient) })
)

/** A connection that sees Redis as it is, without a key prefix. */
const unprefixed = Effect.map(Layer.build(makeRedisClient(url)), Context.get(RedisClient))

describe.skipIf(!redis.available)(redis.label, () => {
  it.scoped("a window lives in Redis under the client's key prefix and expires when it ends", () =>
    Effect.gen(function*() {
      const { limiter } = yield* aProcess
      const raw = yield* unprefixed
      const key = `rate:organization:${randomUUID()}`
      yield* limiter.consume(key, 5, 10_000)
      yield* limiter.consume(key, 5, 10_000)
      expect(yield* Effect.promise(() => raw.get(`${redis.prefix}${key}`))).toBe("2")
      const ttl = yield* Effect.promise(() => raw.pttl(`${redis.prefix}${key}`))
      expect(ttl).toBeGreaterThan(9_000)
      expect(ttl).toBeLessThanOrEqual(10_000)
      expect(yield* Effect.promise(() => raw.exists(key))).toBe(0)
    }))

  it.scoped("a count found without an expiry is given one, so the key cannot refuse for good", () =>
    Effect.gen(function*() {
      const { limiter, redis: client } = yield* aProcess
      const key = `rate:organization:${randomUUID()}`
      yield* Effect.promise(() => client.set(key, "7"))
      const decision = yield* limiter.consume(key, 3, 1_000)
      expect(decision).toMatchObject({ allowed: false, limit: 3, remaining: 0 })
      const ttl = yield* Effect.promise(() => client.pttl(key))
      expect(ttl).toBeGreaterThan(0)
      expect(ttl).toBeLessThanOrEqual(1_000)
    }))

  it.scoped("processes with connections of their own share one window", () =>
    Effect.gen(function*() {
      const [first, second] = [yield* aProcess, yield* aProcess]
      const key = `rate:organization:${randomUUID()}`
      const decisions = yield* Effect.all(
        Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? first : second).limiter.consume(key, 20, 60_000)),
        { concurrency: "unbounded" }
      )
      expect(decisions.filter((d) => d.allowed)).toHaveLength(20)
    }))
})
