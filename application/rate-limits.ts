import {
  planLimits,
  PREFERENCE_REQUESTS_PER_ADDRESS,
  PREFERENCE_REQUESTS_PER_TOKEN,
  SIGN_UPS_PER_FORM_PER_MINUTE
} from "@roster/domain"
import { Context, Effect } from "effect"
import { type RateDecision, RateLimiter } from "./ports/rate-limiter.js"
import { Secrets } from "./ports/secrets.js"
import type { Principal } from "./support/principal.js"
import { operations } from "./support/operation.js"

export const RATE_WINDOW_MS = 60_000

/**
 * Sign-ups a minute one form takes from all its readers together: the domain's default unless the
 * process provides another (SIGN_UP_RATE_PER_FORM).
 */
export class SignUpRate extends Context.Reference<SignUpRate>()("roster/SignUpRate", {
  defaultValue: (): { readonly perFormPerMinute: number } => ({ perFormPerMinute: SIGN_UPS_PER_FORM_PER_MINUTE })
}) {}

/** A decision on a sign-up, and whose limit it is: the client address's or the form's. */
export interface SignUpDecision {
  readonly decision: RateDecision
  readonly limitedBy: "client" | "form"
}

/** Requests per minute per organization, as its plan (or its custom limit) allows; callers without one are counted per client address at the lowest plan's rate. */
export class RateLimits extends Effect.Service<RateLimits>()("roster/RateLimits", {
  effect: Effect.gen(function*() {
    const operation = yield* operations
    const limiter = yield* RateLimiter
    const secrets = yield* Secrets
    const { perFormPerMinute } = yield* SignUpRate

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

    /**
     * A request to the sign-up pages, counted per client address; a sign-up posted to a form
     * (`formId`) is counted against the form's rate too, but only once the address is within its
     * own, so that one address flooding a form never uses up the form's minute for everyone else.
     * The decision of whichever is closer to its limit.
     */
    const forSignUp = operation("RateLimits.forSignUp")(function*(clientAddress: string, formId?: string) {
      const byAddress = yield* forAnonymous(clientAddress)
      if (formId === undefined || !byAddress.allowed) return { decision: byAddress, limitedBy: "client" } satisfies SignUpDecision
      const byForm = yield* limiter.consume(`rate:sign-up-form:${formId}`, perFormPerMinute, RATE_WINDOW_MS)
      const tighter = !byForm.allowed || byForm.remaining < byAddress.remaining
      return { decision: tighter ? byForm : byAddress, limitedBy: tighter ? "form" : "client" } satisfies SignUpDecision
    })

    return { forOrganization, forAnonymous, forPreferences, forSignUp } as const
  })
}) {}
