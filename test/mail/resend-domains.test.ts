/**
 * The Resend domain verifier against a local server that speaks Resend's domains API: a domain
 * registered with its DNS records, looked for, found, removed; and the failures the use case
 * must tell apart (a refused name, an unknown domain, a rate limit, a server error, a refused
 * key, no answer).
 */
import { DomainVerifier } from "@roster/application"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Either, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import { makeResendDomainVerifier } from "../../adapters/resend/index.js"
import { type ResendApi, startResendApi } from "../support/resend-api.js"

let resend: ResendApi
beforeAll(async () => {
  resend = await startResendApi()
})
afterAll(() => resend.close())

const withVerifier = <A, E>(use: (verifier: DomainVerifier["Type"]) => Effect.Effect<A, E>, apiKey?: string) =>
  Effect.flatMap(DomainVerifier, use).pipe(
    Effect.provide(makeResendDomainVerifier({
      apiKey: Redacted.make(apiKey ?? resend.apiKey),
      baseUrl: resend.url,
      attemptTimeout: "300 millis"
    }))
  )

const freshDomain = () => `news-${randomUUID().slice(0, 8)}.example.com`

const failure = <A, E>(result: Either.Either<A, E>): E => {
  if (Either.isRight(result)) throw new Error(`expected a failure, got ${JSON.stringify(result.right)}`)
  return result.left
}

describe("the Resend domain verifier against a Resend stand-in", () => {
  it.live("registers a domain with the records Resend gives, has it looked for, sees it verified, removes it", () =>
    Effect.gen(function*() {
      const name = freshDomain()
      const registered = yield* withVerifier((v) => v.register(name))
      expect(registered).toMatchObject({ name, status: "not_started" })
      expect(registered.records.map((r) => [r.record, r.name, r.type, r.ttl, r.priority, r.status])).toEqual([
        ["SPF", "send", "MX", "Auto", 10, "not_started"],
        ["SPF", "send", "TXT", "Auto", null, "not_started"],
        ["DKIM", "resend._domainkey", "TXT", "Auto", null, "not_started"]
      ])
      expect(registered.records[0]!.value).toBe("feedback-smtp.us-east-1.amazonses.com")
      expect(resend.domains().map((d) => d.id)).toContain(registered.id)

      yield* withVerifier((v) => v.verify(registered.id))
      expect((yield* withVerifier((v) => v.status(registered.id))).status).toBe("pending")
      resend.setDomainStatus(name, "verified")
      const verified = yield* withVerifier((v) => v.status(registered.id))
      expect(verified.status).toBe("verified")
      expect(verified.records.every((r) => r.status === "verified")).toBe(true)
      resend.setDomainStatus(name, "temporary_failure")
      expect((yield* withVerifier((v) => v.status(registered.id))).status).toBe("pending")
      resend.setDomainStatus(name, "partially_failed")
      expect((yield* withVerifier((v) => v.status(registered.id))).status).toBe("failed")

      yield* withVerifier((v) => v.remove(registered.id))
      expect(resend.domains().map((d) => d.id)).not.toContain(registered.id)
      // Gone already: removed.
      yield* withVerifier((v) => v.remove(registered.id))
      const unknown = failure(yield* Effect.either(withVerifier((v) => v.status(registered.id))))
      expect(unknown._tag).toBe("DomainNotAtProvider")
      expect(failure(yield* Effect.either(withVerifier((v) => v.verify(registered.id))))._tag).toBe("DomainNotAtProvider")
      const calls = resend.calls().filter((c) => c.path.startsWith("/domains"))
      expect(calls.map((c) => `${c.method} ${c.path.replace(registered.id, "{id}")} ${c.status}`).slice(-10)).toEqual([
        "POST /domains 201",
        "POST /domains/{id}/verify 200",
        "GET /domains/{id} 200",
        "GET /domains/{id} 200",
        "GET /domains/{id} 200",
        "GET /domains/{id} 200",
        "DELETE /domains/{id} 200",
        "DELETE /domains/{id} 404",
        "GET /domains/{id} 404",
        "POST /domains/{id}/verify 404"
      ])
    }))

  it.live("a name Resend refuses (422), or one registered already (403 validation_error), is refused with its words", () =>
    Effect.gen(function*() {
      const bad = failure(yield* Effect.either(withVerifier((v) => v.register("not a domain"))))
      expect(bad).toMatchObject({ _tag: "DomainRefused", reason: "The `name` field must be a valid domain name." })
      const name = freshDomain()
      yield* withVerifier((v) => v.register(name))
      const again = failure(yield* Effect.either(withVerifier((v) => v.register(name))))
      expect(again).toMatchObject({ _tag: "DomainRefused", reason: `The ${name} domain has been registered already.` })
    }))

  it.live("a rate limit, a server error, a refused key and no answer mean the provider is unavailable; a register is tried once", () =>
    Effect.gen(function*() {
      resend.script({ status: 429, name: "rate_limit_exceeded", message: "Too many requests", retryAfterSeconds: 2 })
      const limited = failure(yield* Effect.either(withVerifier((v) => v.register(freshDomain()))))
      expect(limited).toMatchObject({ _tag: "DomainProviderUnavailable", retryAfterMs: 2000 })
      expect(limited.reason).toContain("429")

      resend.script({ status: 500, name: "internal_server_error", message: "Something went wrong" })
      const before = resend.calls().length
      expect(failure(yield* Effect.either(withVerifier((v) => v.register(freshDomain()))))._tag).toBe("DomainProviderUnavailable")
      expect(resend.calls().length - before).toBe(1)

      resend.script({ status: 403, name: "restricted_api_key", message: "This API key is restricted to only send emails" })
      expect(failure(yield* Effect.either(withVerifier((v) => v.register(freshDomain()))))._tag).toBe("DomainProviderUnavailable")

      const refusedKey = failure(yield* Effect.either(withVerifier((v) => v.register(freshDomain()), "re_wrong")))
      expect(refusedKey).toMatchObject({ _tag: "DomainProviderUnavailable" })
      expect(refusedKey.reason).toContain("401")

      resend.script("hold")
      const silent = failure(yield* Effect.either(withVerifier((v) => v.register(freshDomain()))))
      expect(silent).toMatchObject({ _tag: "DomainProviderUnavailable" })
      expect(silent.reason).toContain("did not answer")
      resend.dropHeld()
    }))

  it.live("reading, verifying and removing are tried again after a failure that may pass", () =>
    Effect.gen(function*() {
      const registered = yield* withVerifier((v) => v.register(freshDomain()))
      resend.script({ status: 500, name: "internal_server_error", message: "Something went wrong" }, 2)
      expect((yield* withVerifier((v) => v.status(registered.id))).id).toBe(registered.id)
      resend.script({ status: 503, name: "application_error", message: "Unavailable" }, 3)
      expect(failure(yield* Effect.either(withVerifier((v) => v.remove(registered.id))))._tag).toBe("DomainProviderUnavailable")
      expect(resend.domains().map((d) => d.id)).toContain(registered.id)
      yield* withVerifier((v) => v.remove(registered.id))
      expect(resend.domains().map((d) => d.id)).not.toContain(registered.id)
    }))
})
