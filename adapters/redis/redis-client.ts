import { Context, Effect, Layer, Redacted, Runtime } from "effect"
import { Redis as IORedis } from "ioredis"

/** The shared Redis connection. */
export class RedisClient extends Context.Tag("roster/RedisClient")<RedisClient, IORedis>() {}

/** The URL as it can be shown: without its password. */
const shown = (url: string): string => {
  try {
    const parsed = new URL(url)
    if (parsed.password !== "") parsed.password = "***"
    return parsed.toString()
  } catch {
    return "(not a URL)"
  }
}

/**
 * Connects in the background and keeps reconnecting; commands fail at once while Redis is away
 * (no offline queue), so callers can fail open. Each outage is told once, naming REDIS_URL and
 * the cause, and its end once. Opening waits up to two seconds for the first connection; closing
 * quits politely, then disconnects.
 */
export const makeRedisClient = (url: Redacted.Redacted<string>, options: { readonly keyPrefix?: string } = {}) =>
  Layer.scoped(
    RedisClient,
    Effect.gen(function*() {
      const runtime = yield* Effect.runtime<never>()
      let unreachable = false
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
            if (unreachable) return
            unreachable = true
            Runtime.runFork(runtime)(Effect.logWarning(
              `REDIS_URL: Redis at ${shown(Redacted.value(url))} does not answer (${error.message}); ` +
                "requests go on without rate limits or idempotency keys until it does"
            ))
          })
          redis.on("ready", () => {
            if (!unreachable) return
            unreachable = false
            Runtime.runFork(runtime)(Effect.logInfo("REDIS_URL: Redis answers again"))
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
