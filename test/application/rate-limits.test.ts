import { describe, expect, it } from "@effect/vitest"
import { RateLimits, SignUpRate } from "@roster/application"
import { planLimits } from "@roster/domain"
import { Effect, Layer, TestClock } from "effect"
import { InProcessRateLimiterLive } from "../../adapters/in-process/index.js"
import { openOrganization, UseCasesInMemory } from "./test-kit.js"

const Limits = RateLimits.Default.pipe(Layer.provideMerge(Layer.merge(UseCasesInMemory, InProcessRateLimiterLive)))
const limited = <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.provide(self, Limits)

describe("rate limits", () => {
  it.effect("an organization gets its plan's requests per minute, then waits for the next minute", () =>
    limited(Effect.gen(function*() {
      const limits = yield* RateLimits
      const { principal } = yield* openOrganization({ tier: "free" })
      const allowed = planLimits.free.requestsPerMinute
      for (let i = 1; i <= allowed; i++) {
        const decision = yield* limits.forOrganization(principal)
        expect(decision).toMatchObject({ allowed: true, limit: allowed, remaining: allowed - i })
      }
      const refused = yield* limits.forOrganization(principal)
      expect(refused).toMatchObject({ allowed: false, remaining: 0 })
      yield* TestClock.adjust("1 minute")
      expect((yield* limits.forOrganization(principal))?.allowed).toBe(true)
    })))

  it.effect("each plan has its own rate, and organizations never share a count", () =>
    limited(Effect.gen(function*() {
      const limits = yield* RateLimits
      const pro = yield* openOrganization({ tier: "pro" })
      const free = yield* openOrganization({ tier: "free" })
      expect((yield* limits.forOrganization(pro.principal))?.limit).toBe(planLimits.pro.requestsPerMinute)
      expect((yield* limits.forOrganization(free.principal))?.remaining).toBe(planLimits.free.requestsPerMinute - 1)
    })))

  it.effect("an enterprise organization counts against its custom limit, or not at all with 0", () =>
    limited(Effect.gen(function*() {
      const limits = yield* RateLimits
      const plain = yield* openOrganization({ tier: "enterprise" })
      const custom = yield* openOrganization({ tier: "enterprise", customRateLimit: 2 })
      const unlimited = yield* openOrganization({ tier: "enterprise", customRateLimit: 0 })
      expect((yield* limits.forOrganization(plain.principal))?.limit).toBe(planLimits.enterprise.requestsPerMinute)
      expect(yield* limits.forOrganization(custom.principal)).toMatchObject({ allowed: true, limit: 2, remaining: 1 })
      yield* limits.forOrganization(custom.principal)
      expect((yield* limits.forOrganization(custom.principal))?.allowed).toBe(false)
      for (let i = 0; i < 3; i++) expect(yield* limits.forOrganization(unlimited.principal)).toBeUndefined()
    })))

  it.effect("a custom limit below the top tier is refused, naming the plan's rate", () =>
    limited(Effect.gen(function*() {
      const error = yield* Effect.flip(openOrganization({ tier: "pro", customRateLimit: 5_000 }))
      expect(error).toMatchObject({
        _tag: "InvalidInput",
        field: "rate_limit",
        problem: "a custom rate limit needs the enterprise plan; pro allows 1000 requests a minute"
      })
    })))

  it.effect("callers without a credential are counted per client address at the lowest plan's rate", () =>
    limited(Effect.gen(function*() {
      const limits = yield* RateLimits
      const first = yield* limits.forAnonymous("198.51.100.1")
      expect(first.limit).toBe(planLimits.free.requestsPerMinute)
      expect((yield* limits.forAnonymous("198.51.100.2")).remaining).toBe(first.remaining)
    })))

  it.effect("a sign-up counts against the client address and the form; one refused by its address leaves the form's count alone", () =>
    Effect.gen(function*() {
      const limits = yield* RateLimits
      const form = "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"
      const perAddress = planLimits.free.requestsPerMinute
      // An address that used up its minute on the pages: its sign-ups are refused, and not counted for the form.
      for (let i = 0; i < perAddress; i++) yield* limits.forAnonymous("198.51.100.1")
      for (let i = 0; i < 10; i++) {
        expect(yield* limits.forSignUp("198.51.100.1", form)).toMatchObject({ limitedBy: "client", decision: { allowed: false } })
      }
      // The form takes its three a minute from other addresses, then refuses, naming itself.
      for (let i = 1; i <= 3; i++) {
        expect(yield* limits.forSignUp(`198.51.100.${10 + i}`, form)).toMatchObject({
          limitedBy: "form",
          decision: { allowed: true, limit: 3, remaining: 3 - i }
        })
      }
      expect(yield* limits.forSignUp("198.51.100.20", form)).toMatchObject({ limitedBy: "form", decision: { allowed: false } })
      // Another form, and requests that post to none, are not held back.
      expect((yield* limits.forSignUp("198.51.100.21", "another-form")).decision.allowed).toBe(true)
      expect(yield* limits.forSignUp("198.51.100.21")).toMatchObject({ limitedBy: "client", decision: { allowed: true } })
      yield* TestClock.adjust("1 minute")
      expect((yield* limits.forSignUp("198.51.100.20", form)).decision.allowed).toBe(true)
    }).pipe(Effect.provide(Limits), Effect.provide(Layer.succeed(SignUpRate, { perFormPerMinute: 3 }))))
})
