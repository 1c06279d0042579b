import { Context, Effect, Layer, Redacted, Runtime } from "effect"
import { Redis as IORedis } from "ioredis"

/** The shared Redis connection. */
export class RedisClient extends Context.Tag("roster/RedisClient")<RedisClient, IORedis>() {}

const ERROR_LOG_INTERVAL_MS = 30_000

/**
 * Connects in the background and keeps reconnecting; commands fail at once while Redis is away
 * (no offline queue), so callers can fail open. Connection trouble is logged at most once per
 * interval. Opening waits up to two seconds for the first connection; closing quits politely,
 * then disconnects.
 */
export const makeRedisClient = (url: Redacted.Redacted<string>, options: { readonly keyPrefix?: string } = {}) =>
  Layer.scoped(
    RedisClient,
    Effect.gen(function*() {
      const runtime = yield* Effect.runtime<never>()
      let lastLogged = 0
      const client = yield* Effect.acquireRelease(
        Effect.sync(() => {
          const redis = new IORedis(Redacted.value(url), {
            keyPrefix: options.keyPrefix ?? "",
            maxRetriesPerRequest: 1,
            enableOfflineQueue: false,
            connectTimeout: 2_000,
            retryStrategy: (attempt) => Math.min(attempt * 250, 2_000)
          })
          redis.on("error", (error: Error) => {
            const now = Date.now()
            if (now - lastLogged < ERROR_LOG_INTERVAL_MS) return
            lastLogged = now
            Runtime.runFork(runtime)(Effect.logWarning("Redis is unreachable", error.message))
          })
          return redis
        }),
        (redis) =>
          Effect.promise(() => redis.quit()).pipe(
            Effect.timeout("2 seconds"),
            Effect.catchAllCause(() => Effect.sync(() => redis.disconnect()))
          )
      )
      yield* firstConnection(client)
      return client
    })
  )

/** Gives the first connection a moment, so that a fresh process is ready when Redis is; never fails. */
const firstConnection = (redis: IORedis) =>
  Effect.async<void>((resume) => {
    if (redis.status === "ready") return resume(Effect.void)
    const done = () => resume(Effect.void)
    redis.once("ready", done)
    redis.once("error", done)
    return Effect.sync(() => {
      redis.off("ready", done)
      redis.off("error", done)
    })
  }).pipe(Effect.timeoutTo({ duration: "2 seconds", onTimeout: () => undefined, onSuccess: () => undefined }))
