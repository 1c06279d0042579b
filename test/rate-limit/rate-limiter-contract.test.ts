import { describe } from "@effect/vitest"
import { Layer, Redacted } from "effect"
import { InProcessRateLimiterLive } from "../../adapters/in-process/index.js"
import { makeRedisClient, RedisRateLimiterLive } from "../../adapters/redis/index.js"
import { rateLimiterContract } from "../contract/rate-limiter-contract.js"
import { redis } from "../support/servers.js"

describe("in-process rate limiter", () => {
  rateLimiterContract(InProcessRateLimiterLive)
})

describe.skipIf(!redis.available)(redis.label, () => {
  rateLimiterContract(
    RedisRateLimiterLive.pipe(Layer.provide(makeRedisClient(Redacted.make(redis.url ?? ""), { keyPrefix: redis.prefix })))
  )
})
