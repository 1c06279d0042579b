import { CacheHealth } from "@roster/application"
import { Effect, Layer } from "effect"
import { RedisClient } from "./redis-client.js"

export const RedisCacheHealthLive = Layer.effect(
  CacheHealth,
  Effect.map(RedisClient, (redis) =>
    CacheHealth.of({
      name: "redis",
      check: Effect.tryPromise({
        try: () => redis.ping(),
        catch: (error) => error instanceof Error ? error.message : "Redis did not answer"
      }).pipe(Effect.asVoid)
    }))
)
