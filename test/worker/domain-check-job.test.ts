import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { ApiKeys, Organizations, OutgoingMailConfig, SendingDomainRepository, SendingDomains } from "@roster/application"
import { type OrganizationId, Slug } from "@roster/domain"
import { Effect, Layer, Logger, Option, Redacted, Schedule } from "effect"
import { randomUUID } from "node:crypto"
import { MemoryPersistenceLive } from "../../adapters/in-process/index.js"
import { CryptoLive } from "../../adapters/node/index.js"
import { makeResendDomainVerifier } from "../../adapters/resend/index.js"
import { DomainCheckJob } from "../../apps/worker/domain-check-job.js"
import { WorkerSettings } from "../../apps/worker/settings.js"
import { keyFor } from "../application/test-kit.js"
import { MovableClock } from "../support/movable-clock.js"
import { type ResendApi, startResendApi } from "../support/resend-api.js"

/**
 * The worker's check of pending sending domains as the worker runs it, over the use cases in
 * memory and the Resend domain verifier against the Resend stand-in, on a clock the test moves
 * forward (the job's pauses still take real time).
 */

let resend: ResendApi
beforeAll(async () => {
  resend = await startResendApi()
})
afterAll(() => resend.close())


const useCases = Layer.mergeAll(SendingDomains.Default, Organizations.Default, ApiKeys.Default).pipe(
  Layer.provideMerge(Layer.mergeAll(
    MemoryPersistenceLive,
    CryptoLive,
    Layer.succeed(OutgoingMailConfig, {
      defaultFrom: "Roster <noreply@roster.example>",
      publicBaseUrl: "https://roster.example",
      unsubscribeMailto: null
    })
  )),
  Layer.provideMerge(Layer.suspend(() =>
    makeResendDomainVerifier({ apiKey: Redacted.make(resend.apiKey), baseUrl: resend.url, attemptTimeout: "1 second" })
  ))
)

/** A domain added by a new enterprise organization, as its owner adds it. */
const addedDomain = Effect.gen(function*() {
  const organization = yield* (yield* Organizations).create({
    name: "Acme",
    slug: Slug.make(`acme-${randomUUID()}`),
    tier: "enterprise"
  })
  const owner = yield* keyFor(organization.id, ["*"])
  return yield* (yield* SendingDomains).add(owner, { domain: `news-${randomUUID().slice(0, 8)}.acme.example` })
})

const statusOf = (organizationId: OrganizationId) =>
  Effect.flatMap(SendingDomainRepository, (domains) => domains.find(organizationId)).pipe(
    Effect.map(Option.map((d) => d.status)),
    Effect.map(Option.getOrElse(() => "none"))
  )

const eventually = (organizationId: OrganizationId, status: string) =>
  statusOf(organizationId).pipe(
    Effect.repeat({ until: (s) => s === status, schedule: Schedule.spaced("20 millis") }),
    Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error(`the domain did not become ${status}`) })
  )

const domainCalls = (id: string) => resend.calls().filter((c) => c.path.startsWith(`/domains/${id}`))

describe("the worker's sending domain check", () => {
  it.live("checks a pending domain once its check is due, and keeps checking until the provider finds the records", () => {
    const clock = new MovableClock()
    return Effect.gen(function*() {
      const domain = yield* addedDomain
      const providerId = resend.domains().find((d) => d.name === domain.name)!.id
      yield* Layer.buildWithScope(
        DomainCheckJob.pipe(Layer.provide(Layer.succeed(WorkerSettings, {
          ...WorkerSettings.defaultValue(),
          domainCheckBatch: 10,
          domainCheckIdleMs: 20
        }))),
        yield* Effect.scope
      )
      // Not due for a minute: nothing is asked.
      const asked = domainCalls(providerId).length
      yield* Effect.sleep("200 millis")
      expect(domainCalls(providerId).length).toBe(asked)

      // Due, still pending at Resend: asked, pending, asked again later.
      clock.advance("61 seconds")
      yield* Effect.sleep("300 millis").pipe(
        Effect.repeat({ until: () => domainCalls(providerId).length > asked, schedule: Schedule.spaced("20 millis") })
      )
      expect(yield* statusOf(domain.organizationId)).toBe("pending")
      const stored = Option.getOrThrow(yield* (yield* SendingDomainRepository).find(domain.organizationId))
      expect(stored.checkedAt).not.toBeNull()
      expect(stored.nextCheckAt!.getTime() - stored.checkedAt!.getTime()).toBe(60_000)

      // The DNS records are found: the next check sees it verified, and checks stop.
      resend.setDomainStatus(domain.name, "verified")
      clock.advance("61 seconds")
      yield* eventually(domain.organizationId, "verified")
      const verified = Option.getOrThrow(yield* (yield* SendingDomainRepository).find(domain.organizationId))
      expect(verified.nextCheckAt).toBeNull()
      expect(verified.records.every((r) => r.status === "verified")).toBe(true)
      const after = domainCalls(providerId).length
      clock.advance("2 hours")
      yield* Effect.sleep("200 millis")
      expect(domainCalls(providerId).length).toBe(after)
    }).pipe(
      Effect.provide(useCases),
      Effect.scoped,
      Effect.withClock(clock),
      Effect.provide(Logger.replace(Logger.defaultLogger, Logger.none))
    )
  }, 20_000)

  it.live("a check that finds the provider unavailable is tried again once its lease runs out; one the provider gave up on fails", () => {
    const clock = new MovableClock()
    return Effect.gen(function*() {
      const domain = yield* addedDomain
      const providerId = resend.domains().find((d) => d.name === domain.name)!.id
      resend.setDomainStatus(domain.name, "verified")
      // Every attempt of the first check fails (the verifier tries three times).
      resend.script({ status: 500, name: "internal_server_error", message: "Something went wrong" }, 3)
      clock.advance("61 seconds")
      yield* Layer.buildWithScope(
        DomainCheckJob.pipe(Layer.provide(Layer.succeed(WorkerSettings, {
          ...WorkerSettings.defaultValue(),
          domainCheckBatch: 10,
          domainCheckIdleMs: 20
        }))),
        yield* Effect.scope
      )
      yield* Effect.sleep("20 millis").pipe(
        Effect.repeat({ until: () => domainCalls(providerId).filter((c) => c.status === 500).length === 3, schedule: Schedule.spaced("20 millis") }),
        Effect.timeout("5 seconds")
      )
      yield* Effect.sleep("200 millis")
      expect(yield* statusOf(domain.organizationId)).toBe("pending")
      clock.advance("5 minutes")
      yield* eventually(domain.organizationId, "verified")

      const given = yield* addedDomain
      resend.setDomainStatus(given.name, "failed")
      clock.advance("61 seconds")
      yield* eventually(given.organizationId, "failed")
    }).pipe(
      Effect.provide(useCases),
      Effect.scoped,
      Effect.withClock(clock),
      Effect.provide(Logger.replace(Logger.defaultLogger, Logger.none))
    )
  }, 20_000)
})
