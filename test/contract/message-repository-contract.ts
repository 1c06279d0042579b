import { assert, expect, layer } from "@effect/vitest"
import { MessageRepository, OutgoingMail, SubscriberRepository } from "@roster/application"
import { MessageEvent, MessageId, Subscriber } from "@roster/domain"
import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import { anEraOfItsOwn, deletingAfterwards, givenOrganization, givenSubscriber, instant, type PersistenceLayer } from "./fixtures.js"
import { givenMessage, givenSendingCampaign, queueAll, withSubscriber } from "./mail-fixtures.js"

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

    it.effect("a subscriber's messages go with them", () =>
      withSubscriber((subscriber, organizationId) =>
        Effect.gen(function*() {
          const messages = yield* MessageRepository
          const message = yield* givenMessage(subscriber)
          yield* (yield* SubscriberRepository).delete(organizationId, subscriber.id)
          assert.isTrue(Option.isNone(yield* messages.findById(organizationId, message.id)))
          expect(yield* messages.history(message.id)).toStrictEqual([])
        })))

    it.effect("finds a sent message by its provider id in any organization, and the latest to an address in each", () =>
      withSubscriber((subscriber) =>
        Effect.gen(function*() {
          const messages = yield* MessageRepository
          const outgoing = yield* OutgoingMail
          const other = yield* givenOrganization()
          yield* Effect.gen(function*() {
            const era = anEraOfItsOwn()
            yield* givenMessage(subscriber, { createdAt: era(1) })
            const newer = yield* givenMessage(subscriber, { createdAt: era(2) })
            const elsewhere = yield* givenSubscriber(other.id, { email: subscriber.email })
            const theirs = yield* givenMessage(elsewhere, { createdAt: era(3) })
            // Not handed over yet: no provider knows it.
            expect(yield* messages.latestTo(subscriber.email)).toStrictEqual([])
            const batch = Option.getOrThrow(yield* outgoing.lease({ now: era(4), limit: 100, leaseMs: 30_000, newKey: randomUUID() }))
            expect(batch.messages).toHaveLength(3)
            const providerIds = batch.messages.map(() => `re_${randomUUID()}`)
            yield* outgoing.settle(
              batch.key,
              batch.messages.map((m, i) => ({ id: m.id, status: "sent" as const, providerId: providerIds[i]! })),
              era(5)
            )
            const theirIndex = batch.messages.findIndex((m) => m.id === theirs.id)
            expect(Option.map(yield* messages.findByProviderId(providerIds[theirIndex]!), (m) => [m.id, m.organizationId, m.status]))
              .toStrictEqual(Option.some([theirs.id, other.id, "sent"]))
            assert.isTrue(Option.isNone(yield* messages.findByProviderId(`re_${randomUUID()}`)))
            const latest = (yield* messages.latestTo(subscriber.email.toUpperCase())).map((m) => m.id as string)
            expect(latest.sort()).toStrictEqual([newer.id, theirs.id].sort())
          }).pipe(deletingAfterwards([other.id]))
        })))

    it.effect("counts a campaign's messages by status", () =>
      Effect.gen(function*() {
        const messages = yield* MessageRepository
        const organization = yield* givenOrganization()
        yield* Effect.gen(function*() {
          for (let i = 0; i < 3; i++) yield* givenSubscriber(organization.id)
          const campaign = yield* givenSendingCampaign(organization.id, instant(10))
          const idle = yield* givenSendingCampaign(organization.id, instant(10))
          expect(yield* messages.campaignStats([campaign.id])).toStrictEqual(new Map())
          yield* queueAll(100, instant(11))
          const stats = yield* messages.campaignStats([campaign.id, idle.id])
          expect(stats.get(campaign.id)).toStrictEqual({ queued: 3 })
          expect(stats.get(idle.id)).toStrictEqual({ queued: 3 })
          expect(yield* messages.campaignStats([])).toStrictEqual(new Map())
          const queued = yield* messages.list({ organizationId: organization.id, status: "queued", limit: 10 })
          expect(queued).toHaveLength(6)
          expect(new Set(queued.map((m) => m.campaignId))).toStrictEqual(new Set([campaign.id, idle.id]))
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("tells a campaign's events over time, each email's first of a kind once, and the recipients who unsubscribed since", () =>
      Effect.gen(function*() {
        const messages = yield* MessageRepository
        const outgoing = yield* OutgoingMail
        const organization = yield* givenOrganization()
        yield* Effect.gen(function*() {
          const readers = [yield* givenSubscriber(organization.id), yield* givenSubscriber(organization.id), yield* givenSubscriber(organization.id)]
          const campaign = yield* givenSendingCampaign(organization.id, instant(100))
          yield* queueAll(100, instant(100))
          const queued = yield* messages.list({ organizationId: organization.id, limit: 10 })
          const byReader = (i: number) => queued.find((m) => m.subscriberId === readers[i]!.id)!
          const window = { since: instant(100), stepMs: 60_000, buckets: 3 }
          expect(yield* messages.campaignActivity(campaign.id, window)).toStrictEqual({ timeline: [], unsubscribed: 0 })
          const report = (i: number, type: "delivered" | "opened" | "clicked", at: Date) =>
            outgoing.recordReport(byReader(i).id, { type, occurredAt: at, detail: null, key: randomUUID() }, () => type === "delivered" ? "delivered" : type)
          // Reader 0 opens twice (the first counts), reader 1 opens in the second minute and clicks long after the window.
          yield* report(0, "delivered", instant(110))
          yield* report(0, "opened", instant(130))
          yield* report(0, "opened", instant(170))
          yield* report(1, "delivered", instant(90))
          yield* report(1, "opened", instant(170))
          yield* report(1, "clicked", instant(10_000))
          const activity = yield* messages.campaignActivity(campaign.id, window)
          expect(activity.timeline).toStrictEqual([
            { bucket: 0, type: "delivered", count: 2 },
            { bucket: 0, type: "opened", count: 1 },
            { bucket: 1, type: "opened", count: 1 },
            { bucket: 2, type: "clicked", count: 1 }
          ])
          // Reports come out of order: reader 1's earlier open, told later, moves its first to the first
          // minute; a report told again under its key, with another time, moves nothing.
          yield* report(1, "opened", instant(125))
          const again = randomUUID()
          assert.isTrue(yield* outgoing.recordReport(byReader(0).id, { type: "clicked", occurredAt: instant(165), detail: null, key: again }, () => "clicked"))
          assert.isFalse(yield* outgoing.recordReport(byReader(0).id, { type: "clicked", occurredAt: instant(105), detail: null, key: again }, () => "clicked"))
          expect((yield* messages.campaignActivity(campaign.id, window)).timeline).toStrictEqual([
            { bucket: 0, type: "delivered", count: 2 },
            { bucket: 0, type: "opened", count: 2 },
            { bucket: 1, type: "clicked", count: 1 },
            { bucket: 2, type: "clicked", count: 1 }
          ])
          // Reader 0 unsubscribes after the email; reader 2's email never went out.
          const subscribers = yield* SubscriberRepository
          for (const i of [0, 2]) {
            yield* subscribers.update(new Subscriber({ ...readers[i]!, status: "unsubscribed", updatedAt: instant(200) }))
          }
          expect((yield* messages.campaignActivity(campaign.id, window)).unsubscribed).toBe(1)
        }).pipe(deletingAfterwards([organization.id]))
      }))
  })
