import { CacheHealth, Readiness } from "@roster/application"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { InProcessCacheHealthLive, MemoryPersistenceLive } from "../../adapters/in-process/index.js"
import { makeRedisClient, RedisCacheHealthLive } from "../../adapters/redis/index.js"
import { redis } from "../support/servers.js"

const cacheAt = (url: string) =>
  RedisCacheHealthLive.pipe(Layer.provide(makeRedisClient(Redacted.make(url), { keyPrefix: redis.prefix })))

const readinessWith = (cache: Layer.Layer<CacheHealth>) =>
  Readiness.Default.pipe(Layer.provide(Layer.merge(MemoryPersistenceLive, cache)))

describe.skipIf(!redis.available)(redis.label, () => {
  it.live("the cache check passes while Redis answers", () =>
    Effect.gen(function*() {
      const report = yield* Effect.flatMap(Readiness, (r) => r.check)
      expect(report).toEqual({ ready: true, checks: { database: "ok", cache: "ok" } })
    }).pipe(Effect.provide(readinessWith(cacheAt(redis.url!)))))
})

describe("cache readiness", () => {
  it.live("an unreachable Redis makes the service not ready, saying which check failed", () =>
    Effect.gen(function*() {
      const report = yield* Effect.flatMap(Readiness, (r) => r.check)
      expect(report).toEqual({ ready: false, checks: { database: "ok", cache: "error" } })
    }).pipe(Effect.provide(readinessWith(cacheAt("redis://127.0.0.1:1")))))

  it.live("the in-process store is always ready", () =>
    Effect.gen(function*() {
      const report = yield* Effect.flatMap(Readiness, (r) => r.check)
      expect(report.checks.cache).toBe("ok")
    }).pipe(Effect.provide(readinessWith(InProcessCacheHealthLive))))
})
