import { assert, expect, layer } from "@effect/vitest"
import { CampaignRepository, MessageRepository, OutgoingMail, UnitOfWork } from "@roster/application"
import { type CampaignId, Message, MessageEvent, MessageId, OrganizationId, statusAfter } from "@roster/domain"
import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import { anEraOfItsOwn, deletingAfterwards, givenOrganization, instant, type PersistenceLayer } from "./fixtures.js"
import { aMessage, givenMessage, givenSendingCampaign, queueAll, queueNextChunk, sendout, tagged, withSubscriber } from "./mail-fixtures.js"

const lease = (now: Date, limit = 100) =>
  Effect.flatMap(OutgoingMail, (outgoing) => outgoing.lease({ now, limit, leaseMs: 30_000, newKey: randomUUID() }))

const leaseCampaign = (limit: number, now: Date, newKey = randomUUID()) =>
  Effect.flatMap(OutgoingMail, (outgoing) => outgoing.leaseCampaign({ limit, leaseMs: 30_000, now, newKey }))

const leased = (message: Message, at: Date, attempts = 1) =>
  new Message({ ...message, attemptCount: attempts, updatedAt: at })

const statsOf = (id: CampaignId) =>
  Effect.map(Effect.flatMap(MessageRepository, (m) => m.campaignStats([id])), (stats) => stats.get(id) ?? {})

export const outgoingMailContract = (persistence: PersistenceLayer) =>
  layer(persistence)("OutgoingMail", (it) => {
    it.effect("a message made again under its id is stored once, as it was first", () =>
      withSubscriber((subscriber, organizationId) =>
        Effect.gen(function*() {
          const outgoing = yield* OutgoingMail
          const messages = yield* MessageRepository
          const message = yield* givenMessage(subscriber, { createdAt: instant(3) })
          const again = new Message({ ...message, subject: "Made again", createdAt: instant(9), updatedAt: instant(9) })
          expect(yield* outgoing.enqueue([again]))
            .toStrictEqual(new Set())
          expect(yield* messages.findById(organizationId, message.id)).toStrictEqual(Option.some(message))
          expect(yield* messages.history(message.id)).toHaveLength(1)
        })))

    it.effect("stores many messages in one go, each with its own first event; those stored before stay as they were", () =>
      withSubscriber((subscriber, organizationId) =>
        Effect.gen(function*() {
          const outgoing = yield* OutgoingMail
          const messages = yield* MessageRepository
          const era = anEraOfItsOwn()
          const before = yield* givenMessage(subscriber, { createdAt: era(1), status: "sent" })
          const queued = aMessage(subscriber, { createdAt: era(2) })
          const withheld = new Message({
            ...aMessage(subscriber, { createdAt: era(3), status: "suppressed" }),
            html: null,
            error: "unsubscribed",
            headers: {}
          })
          const added = yield* outgoing.enqueue([
            new Message({ ...before, subject: "Made again" }),
            queued,
            withheld
          ])
          expect(added).toStrictEqual(new Set([queued.id, withheld.id]))
          expect(yield* messages.findById(organizationId, before.id)).toStrictEqual(Option.some(before))
          expect(yield* messages.findById(organizationId, queued.id)).toStrictEqual(Option.some(queued))
          expect(yield* messages.findById(organizationId, withheld.id)).toStrictEqual(Option.some(withheld))
          expect((yield* messages.history(withheld.id)).map((e) => [e.type, e.detail])).toStrictEqual([["suppressed", "unsubscribed"]])
          expect((yield* messages.history(queued.id)).map((e) => e.type)).toStrictEqual(["queued"])
          // Only the queued one is waiting for the provider.
          const batch = yield* lease(era(10))
          expect(Option.map(batch, (b) => b.messages.map((m) => m.id))).toStrictEqual(Option.some([queued.id]))
          expect(yield* outgoing.enqueue([])).toStrictEqual(new Set())
        })))

    it.effect("a message's history begins with its creation, before what happened in the same instant; a held one says why", () =>
      withSubscriber((subscriber) =>
        Effect.gen(function*() {
          const outgoing = yield* OutgoingMail
          const messages = yield* MessageRepository
          const era = anEraOfItsOwn()
          // Sent and failed in the instant it was made: the creation still comes first.
          const made = yield* Effect.forEach([1, 2, 3, 4], (i) => givenMessage(subscriber, { createdAt: era(i) }))
          const batch = Option.getOrThrow(yield* lease(era(4)))
          yield* outgoing.settle(batch.key, made.map((m, i) => ({ id: m.id, status: "failed" as const, detail: `refused ${i}` })), era(4))
          expect((yield* messages.history(made[3]!.id)).map((e) => [e.type, e.occurredAt, e.detail])).toStrictEqual([
            ["queued", era(4), null],
            ["failed", era(4), "refused 3"]
          ])
          const histories = yield* messages.histories(made.map((m) => m.id))
          expect(made.map((m) => histories.get(m.id)?.map((e) => [e.type, e.detail]))).toStrictEqual(
            made.map((_, i) => [["queued", null], ["failed", `refused ${i}`]])
          )
          const held = new Message({ ...aMessage(subscriber, { createdAt: era(5), status: "sandboxed" }), error: "a test key" })
          yield* outgoing.enqueue([held])
          expect(yield* messages.history(held.id)).toStrictEqual([
            new MessageEvent({ type: "sandboxed", occurredAt: era(5), detail: "a test key" })
          ])
        })))

    it.effect("leases queued messages oldest first into one batch under a new key, and not again while leased", () =>
      withSubscriber((subscriber) =>
        Effect.gen(function*() {
          const outgoing = yield* OutgoingMail

          const era = anEraOfItsOwn()
          const second = yield* givenMessage(subscriber, { createdAt: era(2) })
          const first = yield* givenMessage(subscriber, { createdAt: era(1) })
          const third = yield* givenMessage(subscriber, { createdAt: era(3) })
          yield* givenMessage(subscriber, { createdAt: era(4), status: "suppressed" })
          yield* givenMessage(subscriber, { createdAt: era(50) })

          assert.isFalse(yield* outgoing.anyDue(era(0)))
          assert.isTrue(yield* outgoing.anyDue(era(3)))
          const key = randomUUID()
          const batch = yield* outgoing.lease({ now: era(10), limit: 2, leaseMs: 30_000, newKey: key })
          expect(batch).toStrictEqual(Option.some({ key, messages: [leased(first, era(10)), leased(second, era(10))] }))
          const rest = yield* lease(era(10))
          expect(Option.map(rest, (b) => b.messages)).toStrictEqual(Option.some([leased(third, era(10))]))
          assert.isTrue(Option.isNone(yield* lease(era(39))))
        })))

    it.effect("a batch whose lease ran out is leased again whole, under its own key, before newer messages", () =>
      withSubscriber((subscriber) =>
        Effect.gen(function*() {
          const outgoing = yield* OutgoingMail

          const era = anEraOfItsOwn()
          const a = yield* givenMessage(subscriber, { createdAt: era(1) })
          const b = yield* givenMessage(subscriber, { createdAt: era(2) })
          const key = randomUUID()
          yield* outgoing.lease({ now: era(5), limit: 10, leaseMs: 30_000, newKey: key })
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

    it.effect("a sent batch records each provider id, its subject as it was; messages are found by it and by their recipient", () =>
      withSubscriber((subscriber, organizationId) =>
        Effect.gen(function*() {
          const outgoing = yield* OutgoingMail
          const messages = yield* MessageRepository
          const era = anEraOfItsOwn()
          const older = yield* givenMessage(subscriber, { createdAt: era(1) })
          const newer = yield* givenMessage(subscriber, { createdAt: era(2) })
          const batch = Option.getOrThrow(yield* lease(era(3)))
          const providerIds = [`re_${randomUUID()}`, `re_${randomUUID()}`]
          yield* outgoing.settle(batch.key, [
            { id: older.id, status: "sent", providerId: providerIds[0]! },
            { id: newer.id, status: "sent", providerId: providerIds[1]! }
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
          const outgoing = yield* OutgoingMail
          const messages = yield* MessageRepository
          const era = anEraOfItsOwn()
          const a = yield* givenMessage(subscriber, { createdAt: era(1) })
          const b = yield* givenMessage(subscriber, { createdAt: era(2) })
          const first = Option.getOrThrow(yield* lease(era(3)))
          yield* outgoing.postpone(first.key, era(60), "Resend answered 429", era(4))
          assert.isTrue(Option.isNone(yield* lease(era(59))))
          const retried = Option.getOrThrow(yield* lease(era(60)))
          expect(retried.key).toBe(first.key)
          expect(retried.messages.map((m) => [m.id, m.attemptCount, m.error])).toStrictEqual([
            [a.id, 2, "Resend answered 429"],
            [b.id, 2, "Resend answered 429"]
          ])

          yield* outgoing.unbatch(retried.key, era(61))
          const alone = Option.getOrThrow(yield* lease(era(61)))
          expect(alone.key).toBe(a.id)
          expect(alone.messages.map((m) => m.id)).toStrictEqual([a.id])
          yield* outgoing.settle(alone.key, [{ id: a.id, status: "failed", detail: "Resend answered 422: invalid address" }], era(62))
          const failed = Option.getOrThrow(yield* messages.findById(organizationId, a.id))
          expect([failed.status, failed.error]).toStrictEqual(["failed", "Resend answered 422: invalid address"])
          expect((yield* messages.history(a.id)).map((e) => e.type)).toStrictEqual(["queued", "retrying", "failed"])
          expect(Option.map(yield* lease(era(62)), (batch) => [batch.key, batch.messages.map((m) => m.id)]))
            .toStrictEqual(Option.some([b.id, [b.id]]))
        })))

    it.effect("a provider report is recorded once per key and moves the status as told", () =>
      withSubscriber((subscriber, organizationId) =>
        Effect.gen(function*() {
          const outgoing = yield* OutgoingMail
          const messages = yield* MessageRepository
          const message = yield* givenMessage(subscriber, { status: "sent", createdAt: instant(1) })
          const report = { type: "delivered" as const, occurredAt: instant(5), detail: null, key: `svix:${randomUUID()}` }
          assert.isTrue(yield* outgoing.recordReport(message.id, report, (current) => statusAfter(current, "delivered")))
          assert.isFalse(yield* outgoing.recordReport(message.id, report, () => "bounced"))
          assert.isFalse(yield* outgoing.recordReport(MessageId.make(randomUUID()), { ...report, key: randomUUID() }, () => "opened"))
          const found = Option.getOrThrow(yield* messages.findById(organizationId, message.id))
          expect(found.status).toBe("delivered")
          expect((yield* messages.history(message.id)).map((e) => e.type)).toStrictEqual(["sent", "delivered"])
        })))

    it.effect("a provider report is claimed once in each organization, and not when its transaction rolls back", () =>
      Effect.gen(function*() {
        const outgoing = yield* OutgoingMail
        const unitOfWork = yield* UnitOfWork
        const first = yield* givenOrganization()
        const second = yield* givenOrganization()
        yield* Effect.gen(function*() {
          const key = `svix:${randomUUID()}`
          const failed = yield* Effect.flip(unitOfWork.transaction(
            Effect.zipRight(outgoing.claimReport(first.id, key, instant(1)), Effect.fail("the rest went wrong"))
          ))
          expect(failed).toBe("the rest went wrong")
          assert.isTrue(yield* outgoing.claimReport(first.id, key, instant(2)))
          assert.isFalse(yield* outgoing.claimReport(first.id, key, instant(3)))
          assert.isTrue(yield* unitOfWork.transaction(outgoing.claimReport(second.id, key, instant(4))))
          assert.isFalse(yield* unitOfWork.transaction(outgoing.claimReport(second.id, key, instant(5))))
          assert.isTrue(yield* outgoing.claimReport(first.id, `${key}/other`, instant(6)))
          assert.isFalse(yield* outgoing.claimReport(OrganizationId.make(randomUUID()), key, instant(7)))
        }).pipe(deletingAfterwards([first.id, second.id]))
      }))

    it.effect("queues a campaign's audience once per subscriber, leases it in batches with the recipients as they are now, and settles it", () =>
      Effect.gen(function*() {
        const outgoing = yield* OutgoingMail
        const messages = yield* MessageRepository
        const organization = yield* givenOrganization()
        yield* Effect.gen(function*() {
          const members = []
          for (let i = 0; i < 5; i++) members.push(yield* tagged(organization.id, []))
          const campaign = yield* givenSendingCampaign(organization.id, instant(10))
          const first = Option.getOrThrow(yield* queueNextChunk(2, instant(11)))
          expect(first).toStrictEqual({ added: 2, complete: false })
          // The same recipients queued again add nothing.
          const chunk = {
            campaign,
            from: sendout.from,
            subscriberIds: [...members].sort((a, b) => (a.id < b.id ? -1 : 1)).slice(0, 2).map((s) => s.id),
            complete: false
          }
          expect(yield* outgoing.enqueueAudience(chunk, instant(11))).toBe(0)
          expect(yield* outgoing.enqueueAudience({ ...chunk, subscriberIds: [] }, instant(11))).toBe(0)
          expect(yield* queueAll(2, instant(12))).toBe(2)
          expect(yield* statsOf(campaign.id)).toStrictEqual({ queued: 5 })
          assert.isTrue(yield* outgoing.anyDue(instant(13)))

          const batch = Option.getOrThrow(yield* leaseCampaign(3, instant(14)))
          expect(batch.campaign).toStrictEqual({ campaign, sendout })
          expect(batch.tier).toBe(organization.tier)
          expect(batch.recipients).toHaveLength(3)
          const ids = new Set(members.map((m) => m.id as string))
          for (const r of batch.recipients) {
            assert.isTrue(ids.has(r.message.subscriberId))
            expect(r.message).toMatchObject({ campaignId: campaign.id, status: "queued", attemptCount: 1, from: sendout.from })
            expect(r.status).toBe("active")
          }
          const second = Option.getOrThrow(yield* leaseCampaign(3, instant(14)))
          expect(second.recipients).toHaveLength(2)
          assert.isTrue(Option.isNone(yield* leaseCampaign(3, instant(14))))

          yield* outgoing.settle(batch.key, batch.recipients.map((r, i) =>
            i === 0
              ? { id: r.message.id, status: "suppressed" as const, detail: "unsubscribed", subject: "" }
              : { id: r.message.id, status: "sent" as const, providerId: `p-${randomUUID()}`, subject: "Hello" }
          ), instant(15))
          yield* outgoing.settle(second.key, second.recipients.map((r) => ({
            id: r.message.id,
            status: "failed" as const,
            detail: "refused",
            subject: ""
          })), instant(15))
          expect(yield* statsOf(campaign.id)).toStrictEqual({ sent: 2, suppressed: 1, failed: 2 })
          const sent = batch.recipients[1]!.message
          expect(Option.map(yield* messages.findById(organization.id, sent.id), (m) => [m.status, m.subject])).toStrictEqual(
            Option.some(["sent", "Hello"])
          )
          expect((yield* messages.history(sent.id)).map((e) => e.type)).toStrictEqual(["sent"])

          // Its failed emails queued again, counted from nought.
          yield* (yield* CampaignRepository).transition(campaign.id, "fail", { at: instant(16), failureReason: "2 failed" })
          yield* (yield* CampaignRepository).transition(campaign.id, "retry", { at: instant(17) })
          yield* outgoing.requeueFailed(campaign.id, instant(17))
          expect(yield* statsOf(campaign.id)).toStrictEqual({ sent: 2, suppressed: 1, queued: 2 })
          assert.isTrue(yield* outgoing.anyDue(instant(17)))
          const again = Option.getOrThrow(yield* leaseCampaign(10, instant(17)))
          expect(again.recipients.map((r) => r.message.attemptCount)).toStrictEqual([1, 1])
          expect((yield* messages.history(again.recipients[0]!.message.id)).map((e) => e.type)).toStrictEqual(["failed", "queued"])
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("leases a campaign in subscriber order from a position on; what was queued again behind it, without one", () =>
      Effect.gen(function*() {
        const outgoing = yield* OutgoingMail
        const organization = yield* givenOrganization()
        yield* Effect.gen(function*() {
          const subscribers = []
          for (let i = 0; i < 5; i++) subscribers.push((yield* tagged(organization.id, [])).id as string)
          const inOrder = [...subscribers].sort()
          const campaign = yield* givenSendingCampaign(organization.id, instant(10))
          yield* queueAll(100, instant(11))
          const leaseFrom = (limit: number, positions: ReadonlyMap<CampaignId, string>) =>
            outgoing.leaseCampaign({ limit, leaseMs: 30_000, now: instant(12), newKey: randomUUID(), overdue: false, positions })

          const first = Option.getOrThrow(yield* leaseFrom(2, new Map()))
          expect(first.recipients.map((r) => r.message.subscriberId)).toStrictEqual(inOrder.slice(0, 2))
          expect(first.position).toBe(inOrder[1])
          // From the third subscriber's position on: the fourth and fifth, in order.
          const rest = Option.getOrThrow(yield* leaseFrom(10, new Map([[campaign.id, inOrder[2]!]])))
          expect(rest.recipients.map((r) => r.message.subscriberId)).toStrictEqual(inOrder.slice(3))
          expect(rest.position).toBe(inOrder[4])
          // Nothing after the last position; the third, behind it, is found without positions.
          assert.isTrue(Option.isNone(yield* leaseFrom(10, new Map([[campaign.id, rest.position]]))))
          const behind = Option.getOrThrow(yield* leaseFrom(10, new Map()))
          expect(behind.recipients.map((r) => r.message.subscriberId)).toStrictEqual([inOrder[2]])
          // Overdue batches are looked for only when asked.
          const later = (overdue: boolean) =>
            outgoing.leaseCampaign({ limit: 10, leaseMs: 30_000, now: instant(50), newKey: randomUUID(), overdue })
          assert.isTrue(Option.isNone(yield* later(false)))
          expect([first.key, rest.key, behind.key]).toContain(Option.getOrThrow(yield* later(true)).key)
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("a stopped campaign's unleased emails fail; a cancelled campaign is served no more and its queue is withdrawn", () =>
      Effect.gen(function*() {
        const outgoing = yield* OutgoingMail
        const campaigns = yield* CampaignRepository
        const organization = yield* givenOrganization()
        yield* Effect.gen(function*() {
          for (let i = 0; i < 4; i++) yield* tagged(organization.id, [])
          const stopped = yield* givenSendingCampaign(organization.id, instant(10))
          yield* queueAll(100, instant(11))
          const inFlight = Option.getOrThrow(yield* leaseCampaign(1, instant(12)))
          yield* campaigns.transition(stopped.id, "fail", { at: instant(13), failureReason: "the plan's monthly email limit was reached" })
          yield* outgoing.failQueued(stopped.id, "the plan's monthly email limit was reached", instant(13))
          expect(yield* statsOf(stopped.id)).toStrictEqual({ queued: 1, failed: 3 })
          // The batch in flight settles as it went.
          yield* outgoing.settle(inFlight.key, [{
            id: inFlight.recipients[0]!.message.id,
            status: "sent",
            providerId: `p-${randomUUID()}`,
            subject: "Hello"
          }], instant(14))
          expect(yield* statsOf(stopped.id)).toStrictEqual({ sent: 1, failed: 3 })

          const cancelled = yield* givenSendingCampaign(organization.id, instant(20))
          yield* queueAll(100, instant(21))
          assert.isTrue(yield* outgoing.anyDue(instant(22)))
          yield* campaigns.transition(cancelled.id, "cancel", { at: instant(22) })
          assert.isFalse(yield* outgoing.anyDue(instant(23)))
          assert.isTrue(Option.isNone(yield* leaseCampaign(10, instant(23))))
          expect(yield* outgoing.withdrawCancelled(2)).toBe(2)
          expect(yield* outgoing.withdrawCancelled(100)).toBe(2)
          expect(yield* statsOf(cancelled.id)).toStrictEqual({})
        }).pipe(deletingAfterwards([organization.id]))
      }))
  })
