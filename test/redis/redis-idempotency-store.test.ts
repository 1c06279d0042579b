import { describe, expect, it } from "@effect/vitest"
import { IdempotencyStore } from "@roster/application"
import { Context, Effect, Layer, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import { makeRedisClient, RedisClient, RedisIdempotencyStoreLive } from "../../adapters/redis/index.js"
import { redis } from "../support/servers.js"

const url = Redacted.make(redis.url ?? "")

/** A process of its own: a Redis connection with the run's key prefix and a store over it. */
const aProcess = Effect.map(
  Layer.build(RedisIdempotencyStoreLive.pipe(Layer.provideMerge(makeRedisClient(url, { keyPrefix: redis.prefix })))),
  (context) => ({ store: Context.get(context, IdempotencyStore), redis: Context.get(context, RedisClient) })
)

const response = { status: 201, headers: { "content-type": "application/json" }, body: "{\"id\":\"1\"}" }

describe.skipIf(!redis.available)(redis.label, () => {
  it.scoped("a running key and a completed one are kept with their own expiry", () =>
    Effect.gen(function*() {
      const { redis: client, store } = yield* aProcess
      const key = `idempotency:${randomUUID()}`
      yield* store.claim(key, "POST /subscribers a", 60_000)
      expect(JSON.parse((yield* Effect.promise(() => client.get(key)))!)).toEqual({
        state: "running",
        fingerprint: "POST /subscribers a"
      })
      const lockTtl = yield* Effect.promise(() => client.pttl(key))
      expect(lockTtl).toBeGreaterThan(59_000)
      expect(lockTtl).toBeLessThanOrEqual(60_000)

      yield* store.complete(key, "POST /subscribers a", response, 24 * 60 * 60_000)
      const retainTtl = yield* Effect.promise(() => client.pttl(key))
      expect(retainTtl).toBeGreaterThan(24 * 60 * 60_000 - 1_000)
      expect(retainTtl).toBeLessThanOrEqual(24 * 60 * 60_000)
    }))

  it.scoped("of claims from processes with connections of their own exactly one is granted", () =>
    Effect.gen(function*() {
      const [first, second] = [yield* aProcess, yield* aProcess]
      const key = `idempotency:${randomUUID()}`
      const claims = yield* Effect.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? first : second).store.claim(key, "POST /subscribers a", 60_000)),
        { concurrency: "unbounded" }
      )
      expect(claims.filter((c) => c._tag === "Claimed")).toHaveLength(1)
    }))

  it.scoped("a record it cannot read lets the request through rather than failing it", () =>
    Effect.gen(function*() {
      const { redis: client, store } = yield* aProcess
      const key = `idempotency:${randomUUID()}`
      yield* Effect.promise(() => client.set(key, "not a record", "PX", 60_000))
      expect(yield* store.claim(key, "POST /subscribers a", 60_000)).toEqual({ _tag: "Claimed" })
    }))
})
