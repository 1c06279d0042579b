import { type IdempotencyClaim, IdempotencyStore } from "@roster/application"
import { Effect, Layer, Schema } from "effect"
import { defineScript, makeOccasionalWarning, redisCall, redisCallAs } from "./redis-call.js"
import { RedisClient } from "./redis-client.js"

const StoredResponse = Schema.Struct({
  status: Schema.Int,
  headers: Schema.Record({ key: Schema.String, value: Schema.String }),
  body: Schema.String
})

/** What a key holds in Redis, as JSON. */
const IdempotencyRecord = Schema.parseJson(Schema.Union(
  Schema.Struct({ state: Schema.Literal("running"), fingerprint: Schema.String }),
  Schema.Struct({ state: Schema.Literal("completed"), fingerprint: Schema.String, response: StoredResponse })
))
type IdempotencyRecord = typeof IdempotencyRecord.Type
const encodeRecord = Schema.encodeSync(IdempotencyRecord)

/** Writes the running mark unless the key holds something, and answers what it holds (nil: claimed). */
const CLAIM_LUA = `
local held = redis.call('GET', KEYS[1])
if held then
  return held
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false
`

const Held = Schema.NullOr(IdempotencyRecord)

const claimOf = (held: IdempotencyRecord | null): IdempotencyClaim => {
  if (held === null) return { _tag: "Claimed" }
  return held.state === "running"
    ? { _tag: "Running", fingerprint: held.fingerprint }
    : { _tag: "Completed", fingerprint: held.fingerprint, response: held.response }
}

const milliseconds = (ms: number) => Math.max(1, Math.ceil(ms))

/**
 * Idempotency records in Redis, shared by every process; one Lua script makes the claim atomic.
 * When Redis does not answer within the call timeout, or answers with an error, a claim is granted
 * (the request runs as if it had no key), completing and releasing keep nothing, and a warning says
 * so at most once per interval.
 */
export const RedisIdempotencyStoreLive = Layer.effect(
  IdempotencyStore,
  Effect.gen(function*() {
    const redis = yield* RedisClient
    const claimScript = defineScript(redis, "rosterIdempotencyClaim", { lua: CLAIM_LUA, keys: 1 })
    const warn = yield* makeOccasionalWarning("Idempotency keys are not honoured while Redis does not answer")

    return IdempotencyStore.of({
      claim: (key, fingerprint, lockMs) =>
        redisCallAs(Held, () =>
          claimScript([key], [encodeRecord({ state: "running", fingerprint }), milliseconds(lockMs)])).pipe(
            Effect.map(claimOf),
            Effect.catchAll((failure) => Effect.as(warn(failure), { _tag: "Claimed" } as const))
          ),
      complete: (key, fingerprint, response, retainMs) =>
        redisCall(() =>
          redis.set(key, encodeRecord({ state: "completed", fingerprint, response }), "PX", milliseconds(retainMs))
        ).pipe(Effect.asVoid, Effect.catchAll(warn)),
      release: (key) => redisCall(() => redis.del(key)).pipe(Effect.asVoid, Effect.catchAll(warn))
    })
  })
)
