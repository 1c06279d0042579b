import { type AdaptiveRate, type RateDecision, RateLimiter } from "@roster/application"
import { Clock, Effect, Layer, Schema } from "effect"
import { defineScript, makeOccasionalWarning, redisCall, redisCallAs } from "./redis-call.js"
import { RedisClient } from "./redis-client.js"

/**
 * One fixed window per key, counted atomically: the first request of a window sets its expiry, so
 * the window starts at a key's first request and the key disappears when it ends. A key found
 * without an expiry (written by something else) is given one, so it can never block for good.
 * Answers the count including this request and the milliseconds until the window ends.
 */
const FIXED_WINDOW_LUA = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
`

const WindowCount = Schema.Tuple(Schema.Int, Schema.Int)

/** Holds a key for ARGV[1] ms unless it is held longer already. */
const HOLD_LUA = `
local ttl = redis.call('PTTL', KEYS[1])
if ttl < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
end
return 1
`

/**
 * An adaptive rate: a hash of the lowered rate and when it was last halved (Redis's own clock, the
 * same for every process), forgotten after ARGV[5] ms untouched; a rate back at its most is
 * deleted. ARGV: max, min, step, settle ms, forget ms, and what to do ('slow', 'speed' or 'read').
 * Answers the rate now, as a string (Lua numbers come back as integers otherwise).
 */
const ADAPTIVE_RATE_LUA = `
local max, min, step = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local settle, forget, change = tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6]
local kept = redis.call('HMGET', KEYS[1], 'rate', 'halved')
local rate = math.min(max, tonumber(kept[1]) or max)
local halved = tonumber(kept[2]) or 0
if change == 'read' then
  return tostring(math.max(min, rate))
end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
if change == 'slow' then
  if now - halved >= settle then
    rate = math.max(min, rate / 2)
    halved = now
  end
elseif kept[1] then
  rate = math.min(max, rate + step)
end
if rate >= max then
  redis.call('DEL', KEYS[1])
  return tostring(max)
end
redis.call('HSET', KEYS[1], 'rate', tostring(rate), 'halved', tostring(halved))
redis.call('PEXPIRE', KEYS[1], forget)
return tostring(rate)
`

/**
 * Rate limits in Redis, shared by every process. When Redis does not answer within the call
 * timeout, or answers with an error, the request is let through with the whole limit remaining,
 * and a warning says so at most once per interval; the readiness check reports Redis itself.
 */
export const RedisRateLimiterLive = Layer.effect(
  RateLimiter,
  Effect.gen(function*() {
    const redis = yield* RedisClient
    const countInWindow = defineScript(redis, "rosterFixedWindow", { lua: FIXED_WINDOW_LUA, keys: 1 })
    const holdKey = defineScript(redis, "rosterHold", { lua: HOLD_LUA, keys: 1 })
    const warn = yield* makeOccasionalWarning("Rate limits are not enforced while Redis does not answer")

    const consume = (key: string, limit: number, windowMs: number): Effect.Effect<RateDecision> => {
      const windowArg = Math.max(1, Math.ceil(windowMs))
      return redisCallAs(WindowCount, () => countInWindow([key], [windowArg])).pipe(
        Effect.flatMap(([count, ttlMs]) =>
          Effect.map(Clock.currentTimeMillis, (nowMs): RateDecision => ({
            allowed: count <= limit,
            limit,
            remaining: Math.max(0, limit - count),
            resetAt: new Date(nowMs + Math.max(0, ttlMs))
          }))
        ),
        Effect.catchAll((failure) =>
          Effect.zipRight(
            warn(failure),
            Effect.map(Clock.currentTimeMillis, (nowMs): RateDecision => ({
              allowed: true,
              limit,
              remaining: limit,
              resetAt: new Date(nowMs + windowArg)
            }))
          )
        )
      )
    }

    const hold = (key: string, ms: number): Effect.Effect<void> =>
      ms <= 0 ? Effect.void : redisCall(() => holdKey([key], [Math.ceil(ms)])).pipe(
        Effect.asVoid,
        Effect.catchAll((failure) => warn(failure))
      )

    const heldFor = (key: string): Effect.Effect<number> =>
      redisCallAs(Schema.Int, () => redis.pttl(key)).pipe(
        Effect.map((ttl) => Math.max(0, ttl)),
        Effect.catchAll((failure) => Effect.as(warn(failure), 0))
      )

    const adaptive = defineScript(redis, "rosterAdaptiveRate", { lua: ADAPTIVE_RATE_LUA, keys: 1 })
    const adapt = (change: "slow" | "speed" | "read") => (key: string, rate: AdaptiveRate): Effect.Effect<number> =>
      redisCallAs(
        Schema.NumberFromString,
        () => adaptive([key], [rate.max, rate.min, rate.step, Math.ceil(rate.settleMs), Math.ceil(rate.forgetMs), change])
      ).pipe(Effect.catchAll((failure) => Effect.as(warn(failure), rate.max)))

    return RateLimiter.of({ consume, hold, heldFor, rateOf: adapt("read"), slowDown: adapt("slow"), speedUp: adapt("speed") })
  })
)
