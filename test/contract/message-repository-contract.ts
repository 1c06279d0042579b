import { assert, expect, layer } from "@effect/vitest"
import { MessageRepository, SubscriberRepository, UnitOfWork } from "@roster/application"
import {
  Message,
  MessageEvent,
  MessageId,
  type MessageKind,
  type MessageStatus,
  OrganizationId,
  statusAfter,
  type Subscriber
} from "@roster/domain"
import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import {
  anEraOfItsOwn,
  aTimeOrderedId,
  deletingAfterwards,
  givenOrganization,
  givenSubscriber,
  instant,
  type PersistenceLayer
} from "./fixtures.js"

interface MessageFields {
  readonly status?: MessageStatus
  readonly kind?: MessageKind
  readonly createdAt?: Date
  readonly to?: string
}

const aMessage = (subscriber: Subscriber, fields: MessageFields = {}) => {
  const createdAt = fields.createdAt ?? instant(0)
  return new Message({
    id: MessageId.make(aTimeOrderedId(createdAt)),
    campaignId: null,
    organizationId: subscriber.organizationId,
    subscriberId: subscriber.id,
    templateId: null,
    kind: fields.kind ?? "transactional",
    to: fields.to ?? subscriber.email,
    from: "\"Acme\" <noreply@example.com>",
    subject: "Your receipt",
    html: "<p>Thanks</p>",
    text: "Thanks",
    headers: { "List-Unsubscribe": "<https://example.com/unsubscribe?token=t>" },
    status: fields.status ?? "queued",
    providerId: null,
    error: null,
    attemptCount: 0,
    createdAt,
    updatedAt: createdAt
  })
}

const givenMessage = (subscriber: Subscriber, fields: MessageFields = {}) =>
  Effect.gen(function*() {
    const message = aMessage(subscriber, fields)
    yield* (yield* MessageRepository).insert(
      message,
      new MessageEvent({ type: message.status, occurredAt: message.createdAt, detail: null })
    )
    return message
  })

/** An organization with one subscriber, deleted after the test with everything it holds. */
const withSubscriber = <A, E, R>(test: (subscriber: Subscriber, organizationId: OrganizationId) => Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const organization = yield* givenOrganization()
    return yield* Effect.flatMap(givenSubscriber(organization.id), (subscriber) => test(subscriber, organization.id)).pipe(
      deletingAfterwards([organization.id])
    )
  })

const lease = (now: Date, limit = 100) =>
  Effect.flatMap(MessageRepository, (messages) => messages.leaseDue({ now, limit, leaseMs: 30_000, newKey: randomUUID() }))

const leased = (message: Message, at: Date, attempts = 1) =>
  new Message({ ...message, attemptCount: attempts, updatedAt: at })

export const messageRepositoryContract = (persistence: PersistenceLayer) =>
  layer(persistence)("MessageRepository", (it) => {
    it.effect("stores a message with its first event and finds it within its organization only", () =>
      withSubscriber((subscriber, organizationId) =>
        Effect.gen(function*() {
          const messages = yield* MessageRepository
          const message = yield* givenMessage(subscriber, { kind: "marketing", createdAt: instant(3) })
          expect(yield* messages.findById(organizationId, message.id)).toStrictEqual(Option.some(message))
          expect(yield* messages.organizationOf(message.id)).toStrictEqual(Option.some(organizationId))
          expect(yield* messages.history(message.id)).toStrictEqual([
            new MessageEvent({ type: "queued", occurredAt: instant(3), detail: null })
          ])
          const other = yield* givenOrganization()
          assert.isTrue(Option.isNone(yield* messages.findById(other.id, message.id)))
          assert.isTrue(Option.isNone(yield* messages.organizationOf(MessageId.make(randomUUID()))))
        })))

    it.effect("a message made again under its id is stored once, as it was first", () =>
      withSubscriber((subscriber, organizationId) =>
        Effect.gen(function*() {
          const messages = yield* MessageRepository
          const message = yield* givenMessage(subscriber, { createdAt: instant(3) })
          const again = new Message({ ...message, subject: "Made again", createdAt: instant(9), updatedAt: instant(9) })
          assert.isFalse(yield* messages.insert(again, new MessageEvent({ type: "queued", occurredAt: instant(9), detail: null })))
          expect(yield* messages.findById(organizationId, message.id)).toStrictEqual(Option.some(message))
          expect(yield* messages.history(message.id)).toHaveLength(1)
        })))

    it.effect("lists an organization's messages newest first, by subscriber and status, in keyset or numbered pages", () =>
      withSubscriber((subscriber, organizationId) =>
        Effect.gen(function*() {
          const messages = yield* MessageRepository
          const other = yield* givenSubscriber(organizationId)
          const first = yield* givenMessage(subscriber, { createdAt: instant(1) })
          const second = yield* givenMessage(other, { createdAt: instant(2), status: "suppressed" })
          const third = yield* givenMessage(subscriber, { createdAt: instant(3), status: "sandboxed" })

          expect(yield* messages.list({ organizationId, limit: 10 })).toStrictEqual([third, second, first])
          expect(yield* messages.list({ organizationId, limit: 2 })).toStrictEqual([third, second])
          expect(yield* messages.list({ organizationId, limit: 10, after: { value: third.createdAt.toISOString(), id: third.id } }))
            .toStrictEqual([second, first])
          expect(yield* messages.list({ organizationId, limit: 1, offset: 1 })).toStrictEqual([second])
          expect(yield* messages.list({ organizationId, subscriberId: subscriber.id, limit: 10 })).toStrictEqual([third, first])
          expect(yield* messages.list({ organizationId, status: "suppressed", limit: 10 })).toStrictEqual([second])
          expect(yield* messages.count({ organizationId })).toBe(3)
          expect(yield* messages.count({ organizationId, subscriberId: subscriber.id, status: "queued" })).toBe(1)
          const histories = yield* messages.histories([first.id, third.id])
          expect(histories.get(third.id)?.map((e) => e.type)).toStrictEqual(["sandboxed"])
          expect(histories.get(first.id)?.map((e) => e.type)).toStrictEqual(["queued"])
        })))

    it.effect("leases queued messages oldest first into one batch under a new key, and not again while leased", () =>
      withSubscriber((subscriber) =>
        Effect.gen(function*() {
          const messages = yield* MessageRepository
          const era = anEraOfItsOwn()
          const second = yield* givenMessage(subscriber, { createdAt: era(2) })
          const first = yield* givenMessage(subscriber, { createdAt: era(1) })
          const third = yield* givenMessage(subscriber, { createdAt: era(3) })
          yield* givenMessage(subscriber, { createdAt: era(4), status: "suppressed" })
          yield* givenMessage(subscriber, { createdAt: era(50) })

          assert.isFalse(yield* messages.anyDue(era(0)))
          assert.isTrue(yield* messages.anyDue(era(3)))
          const key = randomUUID()
          const batch = yield* messages.leaseDue({ now: era(10), limit: 2, leaseMs: 30_000, newKey: key })
          expect(batch).toStrictEqual(Option.some({ key, messages: [leased(first, era(10)), leased(second, era(10))] }))
          const rest = yield* lease(era(10))
          expect(Option.map(rest, (b) => b.messages)).toStrictEqual(Option.some([leased(third, era(10))]))
          assert.isTrue(Option.isNone(yield* lease(era(39))))
        })))

    it.effect("a batch whose lease ran out is leased again whole, under its own key, before newer messages", () =>
      withSubscriber((subscriber) =>
        Effect.gen(function*() {
          const messages = yield* MessageRepository
          const era = anEraOfItsOwn()
          const a = yield* givenMessage(subscriber, { createdAt: era(1) })
          const b = yield* givenMessage(subscriber, { createdAt: era(2) })
          const key = randomUUID()
          yield* messages.leaseDue({ now: era(5), limit: 10, leaseMs: 30_000, newKey: key })
          const newer = yield* givenMessage(subscriber, { createdAt: era(6) })

          // A killed worker's batch: the next worker takes the same messages under the same key.
          const again = yield* lease(era(35))
          expect(again).toStrictEqual(Option.some({ key, messages: [leased(a, era(35), 2), leased(b, era(35), 2)] }))
          const fresh = yield* lease(era(35))
          expect(Option.map(fresh, (batch) => batch.messages.map((m) => m.id))).toStrictEqual(Option.some([newer.id]))
        })))

    it.effect("two workers leasing at once never share a message", () =>
      withSubscriber((subscriber) =>
        Effect.gen(function*() {
          const era = anEraOfItsOwn()
          const made = yield* Effect.forEach(Array.from({ length: 12 }, (_, i) => i), (i) =>
            givenMessage(subscriber, { createdAt: era(i) }))
          const batches = yield* Effect.all(Array.from({ length: 6 }, () => lease(era(30), 3)), { concurrency: "unbounded" })
          const ids = batches.flatMap((b) => Option.isSome(b) ? b.value.messages.map((m) => m.id) : [])
          expect(new Set(ids).size).toBe(ids.length)
          expect([...ids].sort()).toStrictEqual(made.map((m) => m.id).sort())
        })))

    it.effect("a sent batch records each provider id; messages are found by it and by their recipient", () =>
      withSubscriber((subscriber, organizationId) =>
        Effect.gen(function*() {
          const messages = yield* MessageRepository
          const era = anEraOfItsOwn()
          const older = yield* givenMessage(subscriber, { createdAt: era(1) })
          const newer = yield* givenMessage(subscriber, { createdAt: era(2) })
          const batch = Option.getOrThrow(yield* lease(era(3)))
          const providerIds = [`re_${randomUUID()}`, `re_${randomUUID()}`]
          yield* messages.markSent(batch.key, [
            { id: older.id, providerId: providerIds[0]! },
            { id: newer.id, providerId: providerIds[1]! }
          ], era(4))

          const sent = Option.getOrThrow(yield* messages.findById(organizationId, older.id))
          expect(sent).toStrictEqual(
            new Message({ ...older, status: "sent", providerId: providerIds[0]!, attemptCount: 1, updatedAt: era(4) })
          )
          expect((yield* messages.history(older.id)).map((e) => e.type)).toStrictEqual(["queued", "sent"])
          expect(yield* messages.findByProviderId(providerIds[1]!)).toStrictEqual(
            Option.some(new Message({ ...newer, status: "sent", providerId: providerIds[1]!, attemptCount: 1, updatedAt: era(4) }))
          )
          expect((yield* messages.latestTo(subscriber.email.toUpperCase())).map((m) => m.id)).toStrictEqual([newer.id])
          assert.isTrue(Option.isNone(yield* lease(era(100))))
        })))

    it.effect("a postponed batch waits whole until its retry; a failed one is settled; a broken-up one goes one by one", () =>
      withSubscriber((subscriber, organizationId) =>
        Effect.gen(function*() {
          const messages = yield* MessageRepository
          const era = anEraOfItsOwn()
          const a = yield* givenMessage(subscriber, { createdAt: era(1) })
          const b = yield* givenMessage(subscriber, { createdAt: era(2) })
          const first = Option.getOrThrow(yield* lease(era(3)))
          yield* messages.postpone(first.key, era(60), "Resend answered 429", era(4))
          assert.isTrue(Option.isNone(yield* lease(era(59))))
          const retried = Option.getOrThrow(yield* lease(era(60)))
          expect(retried.key).toBe(first.key)
          expect(retried.messages.map((m) => [m.id, m.attemptCount, m.error])).toStrictEqual([
            [a.id, 2, "Resend answered 429"],
            [b.id, 2, "Resend answered 429"]
          ])

          yield* messages.unbatch(retried.key, era(61))
          const alone = Option.getOrThrow(yield* lease(era(61)))
          expect(alone.key).toBe(a.id)
          expect(alone.messages.map((m) => m.id)).toStrictEqual([a.id])
          yield* messages.markFailed(alone.key, "Resend answered 422: invalid address", era(62))
          const failed = Option.getOrThrow(yield* messages.findById(organizationId, a.id))
          expect([failed.status, failed.error]).toStrictEqual(["failed", "Resend answered 422: invalid address"])
          expect((yield* messages.history(a.id)).map((e) => e.type)).toStrictEqual(["queued", "retrying", "failed"])
          expect(Option.map(yield* lease(era(62)), (batch) => [batch.key, batch.messages.map((m) => m.id)]))
            .toStrictEqual(Option.some([b.id, [b.id]]))
        })))

    it.effect("a provider report is recorded once per key and moves the status as told", () =>
      withSubscriber((subscriber, organizationId) =>
        Effect.gen(function*() {
          const messages = yield* MessageRepository
          const message = yield* givenMessage(subscriber, { status: "sent", createdAt: instant(1) })
          const report = { type: "delivered" as const, occurredAt: instant(5), detail: null, key: `svix:${randomUUID()}` }
          assert.isTrue(yield* messages.recordReport(message.id, report, (current) => statusAfter(current, "delivered")))
          assert.isFalse(yield* messages.recordReport(message.id, report, () => "bounced"))
          assert.isFalse(yield* messages.recordReport(MessageId.make(randomUUID()), { ...report, key: randomUUID() }, () => "opened"))
          const found = Option.getOrThrow(yield* messages.findById(organizationId, message.id))
          expect(found.status).toBe("delivered")
          expect((yield* messages.history(message.id)).map((e) => e.type)).toStrictEqual(["sent", "delivered"])
        })))

    it.effect("a provider report is claimed once in each organization, and not when its transaction rolls back", () =>
      Effect.gen(function*() {
        const messages = yield* MessageRepository
        const unitOfWork = yield* UnitOfWork
        const first = yield* givenOrganization()
        const second = yield* givenOrganization()
        yield* Effect.gen(function*() {
          const key = `svix:${randomUUID()}`
          const failed = yield* Effect.flip(unitOfWork.transaction(
            Effect.zipRight(messages.claimReport(first.id, key, instant(1)), Effect.fail("the rest went wrong"))
          ))
          expect(failed).toBe("the rest went wrong")
          assert.isTrue(yield* messages.claimReport(first.id, key, instant(2)))
          assert.isFalse(yield* messages.claimReport(first.id, key, instant(3)))
          assert.isTrue(yield* unitOfWork.transaction(messages.claimReport(second.id, key, instant(4))))
          assert.isFalse(yield* unitOfWork.transaction(messages.claimReport(second.id, key, instant(5))))
          assert.isTrue(yield* messages.claimReport(first.id, `${key}/other`, instant(6)))
          assert.isFalse(yield* messages.claimReport(OrganizationId.make(randomUUID()), key, instant(7)))
        }).pipe(deletingAfterwards([first.id, second.id]))
      }))

    it.effect("a subscriber's messages go with them", () =>
      withSubscriber((subscriber, organizationId) =>
        Effect.gen(function*() {
          const messages = yield* MessageRepository
          const message = yield* givenMessage(subscriber)
          yield* (yield* SubscriberRepository).delete(organizationId, subscriber.id)
          assert.isTrue(Option.isNone(yield* messages.findById(organizationId, message.id)))
          expect(yield* messages.history(message.id)).toStrictEqual([])
        })))
  })
