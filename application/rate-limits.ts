import { planLimits, PREFERENCE_REQUESTS_PER_ADDRESS, PREFERENCE_REQUESTS_PER_TOKEN } from "@roster/domain"
import { Effect } from "effect"
import { type RateDecision, RateLimiter } from "./ports/rate-limiter.js"
import { Secrets } from "./ports/secrets.js"
import type { Principal } from "./support/principal.js"
import { operations } from "./support/operation.js"

export const RATE_WINDOW_MS = 60_000

/** Requests per minute per organization, as its plan (or its custom limit) allows; callers without one are counted per client address at the lowest plan's rate. */
export class RateLimits extends Effect.Service<RateLimits>()("roster/RateLimits", {
  effect: Effect.gen(function*() {
    const operation = yield* operations
    const limiter = yield* RateLimiter
    const secrets = yield* Secrets

    /** The organization's decision; `undefined` for an organization without a limit, which is not counted. */
    const forOrganization = operation("RateLimits.forOrganization")((principal: Principal): Effect.Effect<RateDecision | undefined> => {
      const { id, requestsPerMinute } = principal.organization
      return requestsPerMinute === null
        ? Effect.succeed(undefined)
        : limiter.consume(`rate:organization:${id}`, requestsPerMinute, RATE_WINDOW_MS)
    })

    const forAnonymous = operation("RateLimits.forAnonymous")(function*(clientAddress: string) {
      return yield* limiter.consume(`rate:client:${clientAddress}`, planLimits.free.requestsPerMinute, RATE_WINDOW_MS)
    })

    /**
     * A request to the preference center: counted per link (by the token's hash, so that no store
     * holds a token) and per client address. The decision of whichever is closer to its limit.
     */
    const forPreferences = operation("RateLimits.forPreferences")(function*(token: string, clientAddress: string) {
      const [byToken, byAddress] = yield* Effect.all([
        Effect.flatMap(secrets.sha256(token), (hash) =>
          limiter.consume(`rate:preference-token:${hash}`, PREFERENCE_REQUESTS_PER_TOKEN, RATE_WINDOW_MS)),
        limiter.consume(`rate:preference-client:${clientAddress}`, PREFERENCE_REQUESTS_PER_ADDRESS, RATE_WINDOW_MS)
      ], { concurrency: 2 })
      const tighter: RateDecision = !byToken.allowed || (byAddress.allowed && byToken.remaining <= byAddress.remaining)
        ? byToken
        : byAddress
      return tighter
    })

    return { forOrganization, forAnonymous, forPreferences } as const
  })
}) {}
