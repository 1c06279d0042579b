/**
 * The worker's delivery of queued email, over the in-memory database and the Resend mailer
 * against a local server that speaks Resend's API: batches, a batch Resend refuses, failures that
 * may pass and the end of the retries. Time is the test clock's, so retries come due at once.
 */
import {
  EmailDelivery,
  Ids,
  MessageRepository,
  Organizations,
  OutgoingMail,
  OutgoingMailConfig,
  SubscriberRepository
} from "@roster/application"
import { EmailAddress, Message, MessageId, MESSAGE_RETRY_DELAYS_MS, Slug, Subscriber, SubscriberId } from "@roster/domain"
import { afterAll, assert, beforeAll, describe, expect, it } from "@effect/vitest"
import { Clock, Effect, Fiber, Layer, Logger, Option, Redacted, TestClock } from "effect"
import { randomUUID } from "node:crypto"
import { InProcessRateLimiterLive, InProcessWorkSignalLive, MemoryPersistenceLive } from "../../adapters/in-process/index.js"
import { makeJoseTokenSigner } from "../../adapters/jose/index.js"
import { LiquidTemplateEngineLive } from "../../adapters/liquid/index.js"
import { CryptoLive } from "../../adapters/node/index.js"
import { makeResendMailer } from "../../adapters/resend/index.js"
import { type ResendApi, startResendApi } from "../support/resend-api.js"
import { logRecord } from "../../apps/shared/logging.js"

let resend: ResendApi
beforeAll(async () => {
  resend = await startResendApi()
})
afterAll(() => resend.close())

const settings = { batchSize: 100, leaseMs: 30_000, providerRate: 1_000 }

const delivering = <A, E>(test: Effect.Effect<A, E, EmailDelivery | MessageRepository | OutgoingMail | SubscriberRepository | Organizations | Ids>) =>
  Effect.suspend(() =>
    test.pipe(
      Effect.provide(Layer.mergeAll(EmailDelivery.Default, Organizations.Default).pipe(
        Layer.provideMerge(Layer.mergeAll(
          MemoryPersistenceLive,
          CryptoLive,
          makeResendMailer({ apiKey: Redacted.make(resend.apiKey), baseUrl: resend.url, from: "x@example.com", retry: { times: 0 } }),
          InProcessRateLimiterLive,
          makeJoseTokenSigner(new Uint8Array(32).fill(7)),
          LiquidTemplateEngineLive,
          InProcessWorkSignalLive,
          Layer.succeed(OutgoingMailConfig, {
            defaultFrom: "x@example.com",
            publicBaseUrl: "http://roster.test",
            unsubscribeMailto: null
          })
        ))
      ))
    ))

/** Queued emails to `count` new subscribers of a new organization; their ids. */
const queued = (count: number, prefix: string) =>
  Effect.gen(function*() {
    const ids = yield* Ids
    const organization = yield* (yield* Organizations).create({ name: "Acme", slug: Slug.make(`acme-${yield* ids.next}`) })
    const at = new Date(yield* Clock.currentTimeMillis)
    const made: Array<MessageId> = []
    for (let i = 0; i < count; i++) {
      const subscriber = new Subscriber({
        id: SubscriberId.make(randomUUID()),
        organizationId: organization.id,
        email: EmailAddress.make(`${prefix}-${i}@example.com`),
        status: "active",
        metadata: {},
        firstName: null,
        lastName: null,
        createdAt: at,
        updatedAt: at
      })
      yield* (yield* SubscriberRepository).insert(subscriber).pipe(Effect.orDie)
      const message = new Message({
        id: MessageId.make(randomUUID()),
        campaignId: null,
        organizationId: organization.id,
        subscriberId: subscriber.id,
        templateId: null,
        kind: "transactional",
        to: subscriber.email,
        from: "\"Acme\" <noreply@example.com>",
        subject: `Receipt ${i}`,
        html: null,
        text: "Thanks",
        headers: {},
        status: "queued",
        providerId: null,
        error: null,
        attemptCount: 0,
        createdAt: at,
        updatedAt: at
      })
      yield* (yield* OutgoingMail).enqueue([message])
      made.push(message.id)
    }
    return { organizationId: organization.id, ids: made }
  })

const deliverAll = Effect.flatMap(EmailDelivery, (delivery) =>
  Effect.gen(function*() {
    let total = 0
    for (let moved = -1; moved !== 0;) {
      moved = yield* delivery.deliverNext(settings)
      total += moved
    }
    return total
  }))

const statusOf = (organizationId: Parameters<MessageRepository["Type"]["findById"]>[0], id: MessageId) =>
  Effect.map(Effect.flatMap(MessageRepository, (m) => m.findById(organizationId, id)), Option.getOrThrow)

describe("email delivery", () => {
  it.effect("queued email goes in one batch call, each email under its provider id", () =>
    delivering(Effect.gen(function*() {
      const { ids, organizationId } = yield* queued(3, "batch")
      const calls = resend.calls().length
      expect(yield* deliverAll).toBe(3)
      const made = resend.calls().slice(calls)
      expect(made.map((c) => [c.path, c.emails])).toEqual([["/emails/batch", 3]])
      const taken = new Map(resend.accepted().map((a) => [a.to, a.id]))
      for (const [i, id] of ids.entries()) {
        const message = yield* statusOf(organizationId, id)
        expect(message.status).toBe("sent")
        expect(message.providerId).toBe(taken.get(`batch-${i}@example.com`))
      }
    })))

  it.effect("a batch Resend refuses goes again one email at a time, so one bad email fails alone", () =>
    delivering(Effect.gen(function*() {
      const { ids, organizationId } = yield* queued(3, "refused")
      resend.script({ status: 422, name: "validation_error", message: "Invalid `to` field." })
      resend.script({ status: 422, name: "validation_error", message: "Invalid `to` field." })
      const calls = resend.calls().length
      expect(yield* deliverAll).toBe(6)
      expect(resend.calls().slice(calls).map((c) => [c.path, c.status])).toEqual([
        ["/emails/batch", 422],
        ["/emails", 422],
        ["/emails", 200],
        ["/emails", 200]
      ])
      const messages = yield* Effect.forEach(ids, (id) => statusOf(organizationId, id))
      expect(messages.map((m) => m.status).sort()).toEqual(["failed", "sent", "sent"])
      expect(messages.find((m) => m.status === "failed")!.error).toContain("422")
    })))

  it.effect("logs each batch handed over at info, and each one the provider did not take as a warning with why", () => {
    const lines: Array<Record<string, unknown>> = []
    const capture = Logger.replace(Logger.defaultLogger, Logger.make((options) => void lines.push(logRecord(options))))
    return delivering(Effect.gen(function*() {
      yield* queued(2, "logged")
      resend.script({ status: 500, name: "application_error", message: "Something went wrong" })
      expect(yield* deliverAll).toBe(2)
      yield* TestClock.adjust("10 minutes")
      expect(yield* deliverAll).toBe(2)
      const refused = lines.find((line) => line.msg === "the email provider did not take a batch")
      expect(refused).toMatchObject({ level: "warn", emails: 2, retryable: true, rate_limited: false })
      expect(String(refused!.reason)).toContain("500")
      const handed = lines.find((line) => line.msg === "emails handed to the provider")
      expect(handed).toMatchObject({ level: "info", emails: 2, batch: refused!.batch })
    }).pipe(Effect.provide(capture)))
  })

  it.effect("a failure that may pass keeps the email queued until its retry, waiting at least the Retry-After", () =>
    delivering(Effect.gen(function*() {
      const { ids: [id], organizationId } = yield* queued(1, "limited")
      resend.script({ status: 429, name: "rate_limit_exceeded", message: "Too many requests", retryAfterSeconds: 60 })
      expect(yield* deliverAll).toBe(1)
      const waiting = yield* statusOf(organizationId, id!)
      expect([waiting.status, waiting.attemptCount]).toEqual(["queued", 1])
      yield* TestClock.adjust("59 seconds")
      expect(yield* deliverAll).toBe(0)
      yield* TestClock.adjust("1 second")
      expect(yield* deliverAll).toBe(1)
      const sent = yield* statusOf(organizationId, id!)
      expect([sent.status, sent.attemptCount]).toEqual(["sent", 2])
      const history = yield* Effect.flatMap(MessageRepository, (m) => m.history(id!))
      expect(history.map((e) => e.type)).toEqual(["queued", "retrying", "sent"])
    })))

  it.effect("a Retry-After holds every email until it passes, not only the batch it answered", () =>
    delivering(Effect.gen(function*() {
      const { ids: [slowed], organizationId: slowedIn } = yield* queued(1, "slowed")
      resend.script({ status: 429, name: "rate_limit_exceeded", message: "Too many requests", retryAfterSeconds: 5 })
      expect(yield* deliverAll).toBe(1)
      const { ids: [other], organizationId } = yield* queued(1, "waiting")
      const calls = resend.calls().length
      const delivery = yield* Effect.fork(Effect.flatMap(EmailDelivery, (d) => d.deliverNext(settings)))
      yield* TestClock.adjust("4 seconds")
      assert.isTrue(Option.isNone(yield* Fiber.poll(delivery)))
      expect(resend.calls()).toHaveLength(calls)
      expect((yield* statusOf(organizationId, other!)).status).toBe("queued")
      yield* TestClock.adjust("1 second")
      // Then the batch the 429 answered goes again with the other: a 429 is no failure of its emails.
      expect(yield* Fiber.join(delivery)).toBe(1)
      expect(yield* deliverAll).toBe(1)
      expect((yield* statusOf(organizationId, other!)).status).toBe("sent")
      expect((yield* statusOf(slowedIn, slowed!)).status).toBe("sent")
    })))

  it.effect("an email that keeps failing is failed once every attempt was made, and says why", () =>
    delivering(Effect.gen(function*() {
      const { ids: [id], organizationId } = yield* queued(1, "down")
      const attempts = MESSAGE_RETRY_DELAYS_MS.length + 1
      resend.script({ status: 503, name: "application_error", message: "unavailable" }, attempts)
      for (const delay of [...MESSAGE_RETRY_DELAYS_MS, 0]) {
        expect(yield* deliverAll).toBe(1)
        yield* TestClock.adjust(delay)
      }
      const failed = yield* statusOf(organizationId, id!)
      expect(failed.status).toBe("failed")
      expect(failed.attemptCount).toBe(attempts)
      expect(failed.error).toMatch(/^gave up after 10 attempts: Resend answered 503/)
      expect(yield* deliverAll).toBe(0)
    })))
})
