import { expect, it } from "@effect/vitest"
import {
  DomainNotAtProvider,
  DomainProviderUnavailable,
  DomainRefused,
  DomainVerifier,
  type ProviderDomainStatus
} from "@roster/application"
import { Effect, Either, type Layer, type Scope } from "effect"
import { randomUUID } from "node:crypto"

/** The email provider behind a verifier, as a test plays it and the DNS. */
export interface DomainProvider {
  /** The provider finds the domain's DNS records: it is verified. */
  readonly recordsFound: (name: string) => void
  /** The provider fails the next call: on its side (a 5xx), or asking to wait `retryAfterSeconds` (a 429). */
  readonly failNext: (failure: { readonly _tag: "Failing" } | { readonly _tag: "TooFast"; readonly retryAfterSeconds: number }) => void
}

export interface DomainVerifierContractOptions {
  /** The verifier for one test, and the provider behind it if there is one. */
  readonly start: Effect.Effect<
    { readonly layer: Layer.Layer<DomainVerifier>; readonly provider: DomainProvider | undefined },
    never,
    Scope.Scope
  >
  /**
   * Where a domain stands once checking was asked for and before its records are found: `pending`
   * at a provider that looks at the DNS, `verified` where nothing is sent from it.
   */
  readonly checkedStatus: ProviderDomainStatus
  /** Whether a name that is not a domain is refused (`checked`) or registered as given. */
  readonly names: "checked" | "taken as given"
  /** Whether a removed domain is unknown afterwards (`forgotten`), or still answers (a verifier that keeps nothing). */
  readonly removed: "forgotten" | "still answers"
  /** `scripted`: the provider behind it fails as told; `none`: nothing is behind it to fail. */
  readonly failures: "scripted" | "none"
}

/** A fresh domain name for each test. */
const aDomain = () => `news-${randomUUID().slice(0, 8)}.example.com`

/** An id no provider gave. */
const unknownId = () => randomUUID()

const failureOf = <A, E>(result: Either.Either<A, E>): E => {
  if (Either.isRight(result)) throw new Error(`expected a failure, got ${JSON.stringify(result.right)}`)
  return result.left
}

/** What every DomainVerifier promises, with an email provider behind it or none. */
export const domainVerifierContract = (options: DomainVerifierContractOptions): void => {
  const using = <A, E>(use: (verifier: DomainVerifier["Type"], provider: DomainProvider | undefined) => Effect.Effect<A, E>) =>
    Effect.flatMap(options.start, ({ layer, provider }) =>
      Effect.provide(Effect.flatMap(DomainVerifier, (verifier) => use(verifier, provider)), layer))

  it.scopedLive("a registered domain comes back not started, with the SPF and DKIM records its owner must add", () =>
    using((verifier) =>
      Effect.gen(function*() {
        const name = aDomain()
        const domain = yield* verifier.register(name)
        expect(domain).toMatchObject({ name, status: "not_started" })
        expect(domain.id).not.toBe("")
        expect(new Set(domain.records.map((r) => r.record))).toEqual(new Set(["SPF", "DKIM"]))
        expect(domain.records.some((r) => r.record === "DKIM" && r.type === "TXT")).toBe(true)
        expect(domain.records.every((r) => r.status === "not_started" && r.value !== "")).toBe(true)
      })
    ))

  it.scopedLive(`once checking is asked for, the domain is ${options.checkedStatus}, records and all`, () =>
    using((verifier, provider) =>
      Effect.gen(function*() {
        const name = aDomain()
        const { id } = yield* verifier.register(name)
        yield* verifier.verify(id)
        const checked = yield* verifier.status(id)
        expect(checked).toMatchObject({ id, name, status: options.checkedStatus })
        expect(checked.records.every((r) => r.status === options.checkedStatus)).toBe(true)
        if (provider === undefined) return
        provider.recordsFound(name)
        const found = yield* verifier.status(id)
        expect(found.status).toBe("verified")
        expect(found.records.every((r) => r.status === "verified")).toBe(true)
      })
    ))

  it.scopedLive("a domain the provider does not know is answered as such, by id; removing it is done already", () =>
    using((verifier) =>
      Effect.gen(function*() {
        const id = unknownId()
        const status = failureOf(yield* Effect.either(verifier.status(id)))
        expect(status).toBeInstanceOf(DomainNotAtProvider)
        expect(status).toMatchObject({ id })
        const verify = failureOf(yield* Effect.either(verifier.verify(id)))
        expect(verify).toMatchObject({ _tag: "DomainNotAtProvider", id })
        yield* verifier.remove(id)
      })
    ))

  it.scopedLive(`a removed domain ${options.removed === "forgotten" ? "is forgotten" : "still answers"}, and removing it again is fine`, () =>
    using((verifier) =>
      Effect.gen(function*() {
        const name = aDomain()
        const { id } = yield* verifier.register(name)
        yield* verifier.remove(id)
        yield* verifier.remove(id)
        const after = yield* Effect.either(verifier.status(id))
        if (options.removed === "forgotten") expect(failureOf(after)).toMatchObject({ _tag: "DomainNotAtProvider", id })
        else expect(Either.getOrThrow(after)).toMatchObject({ id, name })
      })
    ))

  it.scopedLive(`a name that is not a domain is ${options.names === "checked" ? "refused, saying why" : "registered as given"}`, () =>
    using((verifier) =>
      Effect.gen(function*() {
        const result = yield* Effect.either(verifier.register("not a domain"))
        if (options.names === "checked") {
          const refused = failureOf(result)
          expect(refused).toBeInstanceOf(DomainRefused)
          expect((refused as DomainRefused).reason).not.toBe("")
        } else {
          expect(Either.getOrThrow(result)).toMatchObject({ name: "not a domain", status: "not_started" })
        }
      })
    ))

  if (options.failures === "none") return

  it.scopedLive("a provider that fails or asks to wait is unavailable (with its wait), not a refusal", () =>
    using((verifier, provider) =>
      Effect.gen(function*() {
        if (provider === undefined) throw new Error("a verifier whose failures are scripted has a provider behind it")
        provider.failNext({ _tag: "Failing" })
        const failing = failureOf(yield* Effect.either(verifier.register(aDomain())))
        expect(failing).toBeInstanceOf(DomainProviderUnavailable)
        expect(failing).toMatchObject({ retryAfterMs: null })
        provider.failNext({ _tag: "TooFast", retryAfterSeconds: 3 })
        const tooFast = failureOf(yield* Effect.either(verifier.register(aDomain())))
        expect(tooFast).toMatchObject({ _tag: "DomainProviderUnavailable", retryAfterMs: 3_000 })
      })
    ))
}
