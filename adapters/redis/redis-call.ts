import { Clock, Data, Effect, Schema } from "effect"
import type { Redis as IORedis } from "ioredis"

/** Redis answered with an error, or not in time. */
export class RedisUnavailable extends Data.TaggedError("RedisUnavailable")<{ readonly reason: string }> {}

/** How long a request waits for Redis before going on without it. */
export const REDIS_CALL_TIMEOUT_MS = 500

/** One call to Redis, bounded by the timeout; whatever goes wrong becomes `RedisUnavailable`. */
export const redisCall = <A>(call: () => Promise<A>): Effect.Effect<A, RedisUnavailable> =>
  Effect.tryPromise({
    try: call,
    catch: (error) => new RedisUnavailable({ reason: error instanceof Error ? error.message : String(error) })
  }).pipe(
    Effect.timeoutFail({
      duration: REDIS_CALL_TIMEOUT_MS,
      onTimeout: () => new RedisUnavailable({ reason: `no answer within ${REDIS_CALL_TIMEOUT_MS} ms` })
    })
  )

/** One call to Redis whose answer must match the schema; an answer that does not is a failure too. */
export const redisCallAs = <A, I>(schema: Schema.Schema<A, I>, call: () => Promise<unknown>): Effect.Effect<A, RedisUnavailable> =>
  Effect.flatMap(redisCall(call), (reply) =>
    Schema.decodeUnknown(schema)(reply).pipe(
      Effect.mapError((error) => new RedisUnavailable({ reason: `unexpected answer: ${error.message}` }))
    ))

const WARNING_INTERVAL_MS = 30_000

/**
 * A warning for a failure that repeats with every request while Redis is away: logged at most once
 * per interval (on Effect's Clock), with the reason of the failure that logged it.
 */
export const makeOccasionalWarning = (message: string, intervalMs = WARNING_INTERVAL_MS) =>
  Effect.sync(() => {
    let lastLoggedAtMs = Number.NEGATIVE_INFINITY
    return (failure: RedisUnavailable): Effect.Effect<void> =>
      Effect.flatMap(Clock.currentTimeMillis, (nowMs) => {
        if (nowMs - lastLoggedAtMs < intervalMs) return Effect.void
        lastLoggedAtMs = nowMs
        return Effect.logWarning(message, failure.reason)
      })
  })

/**
 * Registers a Lua script on the connection (ioredis sends it by EVALSHA, and by EVAL when Redis
 * does not know it yet) and returns the way to call it with its keys, which get the client's key
 * prefix, and its arguments.
 */
export const defineScript = (redis: IORedis, name: string, script: { readonly lua: string; readonly keys: number }) => {
  redis.defineCommand(name, { lua: script.lua, numberOfKeys: script.keys })
  // defineCommand adds the method at run time, where the compiler cannot see it.
  const command = (redis as unknown as Record<string, (...args: Array<string | number>) => Promise<unknown>>)[name]!
  return (keys: ReadonlyArray<string>, args: ReadonlyArray<string | number>): Promise<unknown> =>
    command.call(redis, ...keys, ...args)
}
