import { describe } from "@effect/vitest"
import { Layer, Redacted } from "effect"
import { InProcessIdempotencyStoreLive } from "../../adapters/in-process/index.js"
import { makeRedisClient, RedisIdempotencyStoreLive } from "../../adapters/redis/index.js"
import { idempotencyStoreContract } from "../contract/idempotency-store-contract.js"
import { redis } from "../support/servers.js"

describe("in-process idempotency store", () => {
  idempotencyStoreContract(InProcessIdempotencyStoreLive)
})

describe.skipIf(!redis.available)(redis.label, () => {
  idempotencyStoreContract(
    RedisIdempotencyStoreLive.pipe(
      Layer.provide(makeRedisClient(Redacted.make(redis.url ?? ""), { keyPrefix: redis.prefix }))
    )
  )
})
