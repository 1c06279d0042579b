import { planLimits } from "@roster/domain"
import { Effect } from "effect"
import { RateLimiter } from "./ports/rate-limiter.js"
import type { Principal } from "./support/principal.js"

export const RATE_WINDOW_MS = 60_000

/** Requests per minute per organization, as its plan allows; callers without one are counted per client address at the lowest plan's rate. */
export class RateLimits extends Effect.Service<RateLimits>()("roster/RateLimits", {
  effect: Effect.gen(function*() {
    const limiter = yield* RateLimiter

    const forOrganization = Effect.fn("RateLimits.forOrganization")(function*(principal: Principal) {
      const { requestsPerMinute } = planLimits[principal.organization.tier]
      return yield* limiter.consume(`rate:organization:${principal.organization.id}`, requestsPerMinute, RATE_WINDOW_MS)
    })

    const forAnonymous = Effect.fn("RateLimits.forAnonymous")(function*(clientAddress: string) {
      return yield* limiter.consume(`rate:client:${clientAddress}`, planLimits.free.requestsPerMinute, RATE_WINDOW_MS)
    })

    return { forOrganization, forAnonymous } as const
  })
}) {}
