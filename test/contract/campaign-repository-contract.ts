import { assert, expect, layer } from "@effect/vitest"
import { CampaignRepository, type CampaignSendout, TagAssignments } from "@roster/application"
import { Campaign, CampaignId, type MessageStatus, type OrganizationId, type Subscriber, type TagId } from "@roster/domain"
import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import { deletingAfterwards, givenOrganization, givenSubscriber, givenTag, instant, type PersistenceLayer } from "./fixtures.js"

const aCampaign = (organizationId: OrganizationId, at: Date, fields: Partial<Campaign> = {}) =>
  new Campaign({
    id: CampaignId.make(randomUUID()),
    organizationId,
    name: "November issue",
    kind: "marketing",
    templateId: null,
    subject: "Hello {{ subscriber.first_name }}",
    html: "<p>Hi</p>",
    text: null,
    audience: { tagIds: [], excludeTagIds: [] },
    data: { issue: 11 },
    status: "draft",
    scheduledAt: null,
    startedAt: null,
    finishedAt: null,
    failureReason: null,
    sandboxed: false,
    createdAt: at,
    updatedAt: at,
    ...fields
  })

const sendout: CampaignSendout = {
  content: { subject: "Hello", html: "<p>Hi</p>", text: null },
  from: "\"Acme\" <news@acme.example>",
  organizationName: "Acme"
}

/** Takes the audiences of every sending campaign, chunk by chunk; how many chunks. */
const fixAll = (chunk: number, at: Date) =>
  Effect.gen(function*() {
    const campaigns = yield* CampaignRepository
    let chunks = 0
    while (Option.isSome(yield* campaigns.fixAudience(chunk, at))) chunks += 1
    return chunks
  })

const statsOf = (id: CampaignId) =>
  Effect.map(Effect.flatMap(CampaignRepository, (c) => c.stats([id])), (stats) => stats.get(id) ?? {})

const lease = (limit: number, now: Date, newKey = randomUUID()) =>
  Effect.flatMap(CampaignRepository, (c) => c.leaseDue({ limit, leaseMs: 30_000, now, newKey }))

const tagged = (organizationId: OrganizationId, tagIds: ReadonlyArray<TagId>, fields: Parameters<typeof givenSubscriber>[1] = {}) =>
  Effect.gen(function*() {
    const subscriber = yield* givenSubscriber(organizationId, { createdAt: instant(1), ...fields })
    if (tagIds.length > 0) yield* (yield* TagAssignments).attach(organizationId, subscriber.id, tagIds, instant(1), null)
    return subscriber
  })

export const campaignRepositoryContract = (persistence: PersistenceLayer) =>
  layer(persistence)("CampaignRepository", (it) => {
    it.effect("stores campaigns, lists them newest first, and changes state only from the states given", () =>
      Effect.gen(function*() {
        const campaigns = yield* CampaignRepository
        const organization = yield* givenOrganization()
        yield* Effect.gen(function*() {
          const older = aCampaign(organization.id, instant(1))
          const newer = aCampaign(organization.id, instant(2), { audience: { tagIds: [], excludeTagIds: [] }, name: "Later" })
          yield* campaigns.insert(older)
          yield* campaigns.insert(newer)
          expect(yield* campaigns.findById(organization.id, older.id)).toStrictEqual(Option.some(older))
          assert.isTrue(Option.isNone(yield* campaigns.findById((yield* givenOrganization()).id, older.id)))
          expect(yield* campaigns.list({ organizationId: organization.id, limit: 10 })).toStrictEqual([newer, older])
          expect(yield* campaigns.list({ organizationId: organization.id, limit: 10, offset: 1 })).toStrictEqual([older])
          expect(yield* campaigns.list({
            organizationId: organization.id,
            limit: 10,
            after: { value: newer.createdAt.toISOString(), id: newer.id }
          })).toStrictEqual([older])
          expect(yield* campaigns.count({ organizationId: organization.id, status: "draft" })).toBe(2)

          const renamed = new Campaign({ ...older, name: "Renamed", updatedAt: instant(3) })
          assert.isFalse(yield* campaigns.save(renamed, ["scheduled"]))
          assert.isTrue(yield* campaigns.save(renamed, ["draft"]))
          expect(yield* campaigns.findById(organization.id, older.id)).toStrictEqual(Option.some(renamed))

          const scheduled = yield* campaigns.transition(older.id, ["draft"], "scheduled", {
            at: instant(4),
            sandboxed: true,
            scheduledAt: instant(90)
          })
          expect(Option.map(scheduled, (c) => [c.status, c.sandboxed, c.finishedAt, c.scheduledAt])).toStrictEqual(
            Option.some(["scheduled", true, null, instant(90)])
          )
          expect(Option.map(yield* campaigns.findById(organization.id, older.id), (c) => c.scheduledAt)).toStrictEqual(
            Option.some(instant(90))
          )
          // Of two moves from one state, the second finds it moved.
          assert.isTrue(Option.isNone(yield* campaigns.transition(older.id, ["draft"], "scheduled", { at: instant(4) })))
          const cancelled = yield* campaigns.transition(older.id, ["scheduled", "sending"], "cancelled", { at: instant(5) })
          expect(Option.map(cancelled, (c) => [c.status, c.finishedAt])).toStrictEqual(Option.some(["cancelled", instant(5)]))
          assert.isTrue(Option.isNone(yield* campaigns.start(older.id, ["draft"], sendout, instant(6))))
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("counts the audience and takes it in chunks with the same condition, once per subscriber, none created later", () =>
      Effect.gen(function*() {
        const campaigns = yield* CampaignRepository
        const organization = yield* givenOrganization()
        const other = yield* givenOrganization()
        yield* Effect.gen(function*() {
          const news = yield* givenTag(organization.id)
          const muted = yield* givenTag(organization.id)
          const members = []
          for (let i = 0; i < 5; i++) members.push(yield* tagged(organization.id, [news.id]))
          yield* tagged(organization.id, [news.id, muted.id])
          yield* tagged(organization.id, [news.id], { status: "unsubscribed" })
          yield* tagged(organization.id, [news.id], { status: "bounced" })
          yield* tagged(organization.id, [])
          yield* tagged(other.id, [])
          const audience = { tagIds: [news.id], excludeTagIds: [muted.id] }
          expect(yield* campaigns.countAudience(organization.id, audience, "marketing")).toBe(5)
          expect(yield* campaigns.countAudience(organization.id, audience, "transactional")).toBe(6)
          expect(yield* campaigns.countAudience(organization.id, { tagIds: [], excludeTagIds: [] }, "marketing")).toBe(7)

          const campaign = aCampaign(organization.id, instant(1), { audience })
          yield* campaigns.insert(campaign)
          const started = yield* campaigns.start(campaign.id, ["draft"], sendout, instant(10), false)
          expect(Option.map(started, (c) => [c.status, c.startedAt])).toStrictEqual(Option.some(["sending", instant(10)]))
          // Created after the start: not in the audience.
          yield* tagged(organization.id, [news.id], { createdAt: instant(11) })

          expect(yield* fixAll(2, instant(12))).toBe(3)
          expect(yield* statsOf(campaign.id)).toStrictEqual({ queued: 5 })
          // Taken again, the audience adds nothing.
          assert.isTrue(Option.isNone(yield* campaigns.fixAudience(2, instant(13))))
          assert.isTrue(Option.isNone(yield* campaigns.finishIfDone(campaign.id, instant(13), (n) => `${n} failed`)))

          const first = Option.getOrThrow(yield* lease(3, instant(14)))
          expect(first.campaign.campaign.id).toBe(campaign.id)
          expect(first.campaign.sendout).toStrictEqual(sendout)
          expect(first.tier).toBe(organization.tier)
          expect(first.recipients).toHaveLength(3)
          const ids = new Set(members.map((m) => m.id as string))
          for (const r of first.recipients) {
            assert.isTrue(ids.has(r.message.subscriberId))
            expect(r.message).toMatchObject({ campaignId: campaign.id, status: "queued", attemptCount: 1, from: sendout.from })
            expect(r.status).toBe("active")
            expect(r.tagNames).toStrictEqual([news.name])
          }
          const second = Option.getOrThrow(yield* lease(3, instant(14)))
          expect(second.recipients).toHaveLength(2)
          assert.isTrue(Option.isNone(yield* lease(3, instant(14))))

          yield* campaigns.settle(first.key, first.recipients.map((r, i) =>
            i === 0
              ? { id: r.message.id, status: "suppressed" as const, detail: "unsubscribed", subject: "" }
              : { id: r.message.id, status: "sent" as const, providerId: `p-${randomUUID()}`, subject: "Hello" }
          ), instant(15))
          yield* campaigns.settle(second.key, second.recipients.map((r) => ({
            id: r.message.id,
            status: "failed" as const,
            detail: "refused",
            subject: ""
          })), instant(15))
          const stats: Partial<Record<MessageStatus, number>> = { sent: 2, suppressed: 1, failed: 2 }
          expect(yield* statsOf(campaign.id)).toStrictEqual(stats)
          const finished = yield* campaigns.finishIfDone(campaign.id, instant(16), (n) => `${n} failed`)
          expect(Option.map(finished, (c) => [c.status, c.failureReason, c.finishedAt])).toStrictEqual(
            Option.some(["failed", "2 failed", instant(16)])
          )

          const retried = yield* campaigns.retry(campaign.id, instant(17))
          expect(Option.map(retried, (c) => [c.status, c.failureReason])).toStrictEqual(Option.some(["sending", null]))
          expect(yield* statsOf(campaign.id)).toStrictEqual({ sent: 2, suppressed: 1, queued: 2 })
          assert.isTrue(yield* campaigns.anyDue(instant(17)))
          const again = Option.getOrThrow(yield* lease(10, instant(17)))
          expect(again.recipients.map((r) => r.message.attemptCount)).toStrictEqual([1, 1])
          yield* campaigns.settle(again.key, again.recipients.map((r) => ({
            id: r.message.id,
            status: "sent" as const,
            providerId: `p-${randomUUID()}`,
            subject: "Hello"
          })), instant(18))
          expect(yield* campaigns.doneSending(100)).toContain(campaign.id)
          const sent = yield* campaigns.finishIfDone(campaign.id, instant(19), (n) => `${n} failed`)
          expect(Option.map(sent, (c) => [c.status, c.failureReason])).toStrictEqual(Option.some(["sent", null]))
        }).pipe(deletingAfterwards([organization.id, other.id]))
      }))

    it.effect("the audience is the one of the start: tags given or taken while it is being taken change nothing", () =>
      Effect.gen(function*() {
        const campaigns = yield* CampaignRepository
        const assignments = yield* TagAssignments
        const organization = yield* givenOrganization()
        yield* Effect.gen(function*() {
          const news = yield* givenTag(organization.id)
          const muted = yield* givenTag(organization.id)
          // Ten subscribers in id order, the order the audience is taken in: the even ones have the tag.
          const people: Array<Subscriber> = []
          for (let i = 0; i < 10; i++) people.push(yield* tagged(organization.id, []))
          people.sort((a, b) => (a.id < b.id ? -1 : 1))
          for (const i of [0, 2, 4, 6, 8]) yield* assignments.attach(organization.id, people[i]!.id, [news.id], instant(1), null)
          yield* assignments.attach(organization.id, people[2]!.id, [muted.id], instant(1), null)
          const audience = { tagIds: [news.id], excludeTagIds: [muted.id] }
          expect(yield* campaigns.countAudience(organization.id, audience, "marketing")).toBe(4)

          const campaign = aCampaign(organization.id, instant(1), { audience })
          yield* campaigns.insert(campaign)
          assert.isTrue(Option.isSome(yield* campaigns.start(campaign.id, ["draft"], sendout, instant(10), false)))
          const first = Option.getOrThrow(yield* campaigns.fixAudience(1, instant(11)))
          expect(first).toStrictEqual({ id: campaign.id, added: 1, complete: false })
          // Midway, past the first chunk: two lose the tag, two get it, one is muted and one no longer is.
          for (const i of [4, 8]) yield* assignments.detach(organization.id, people[i]!.id, news.id)
          for (const i of [5, 9]) yield* assignments.attach(organization.id, people[i]!.id, [news.id], instant(12), null)
          yield* assignments.detach(organization.id, people[2]!.id, muted.id)
          yield* assignments.attach(organization.id, people[6]!.id, [muted.id], instant(12), null)
          expect(yield* campaigns.countAudience(organization.id, audience, "marketing")).toBe(4)

          yield* fixAll(2, instant(13))
          const leased = Option.getOrThrow(yield* lease(100, instant(14)))
          expect(leased.recipients.map((r) => r.message.subscriberId)).toStrictEqual([0, 4, 6, 8].map((i) => people[i]!.id))
          expect(yield* statsOf(campaign.id)).toStrictEqual({ queued: 4 })
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("leases a campaign in subscriber order from a position on; what was queued again behind it, without one", () =>
      Effect.gen(function*() {
        const campaigns = yield* CampaignRepository
        const organization = yield* givenOrganization()
        yield* Effect.gen(function*() {
          const subscribers = []
          for (let i = 0; i < 5; i++) subscribers.push((yield* tagged(organization.id, [])).id as string)
          const inOrder = [...subscribers].sort()
          const campaign = aCampaign(organization.id, instant(1))
          yield* campaigns.insert(campaign)
          yield* campaigns.start(campaign.id, ["draft"], sendout, instant(10))
          yield* fixAll(100, instant(11))
          const leaseFrom = (limit: number, positions: ReadonlyMap<CampaignId, string>) =>
            campaigns.leaseDue({ limit, leaseMs: 30_000, now: instant(12), newKey: randomUUID(), overdue: false, positions })

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
            campaigns.leaseDue({ limit: 10, leaseMs: 30_000, now: instant(50), newKey: randomUUID(), overdue })
          assert.isTrue(Option.isNone(yield* later(false)))
          expect([first.key, rest.key, behind.key]).toContain(Option.getOrThrow(yield* later(true)).key)
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("stop fails what was not handed over; a cancelled campaign is served no more and its queue is withdrawn", () =>
      Effect.gen(function*() {
        const campaigns = yield* CampaignRepository
        const organization = yield* givenOrganization()
        yield* Effect.gen(function*() {
          for (let i = 0; i < 4; i++) yield* tagged(organization.id, [])
          const stopped = aCampaign(organization.id, instant(1))
          const cancelled = aCampaign(organization.id, instant(2))
          yield* campaigns.insert(stopped)
          yield* campaigns.insert(cancelled)
          yield* campaigns.start(stopped.id, ["draft"], sendout, instant(10))
          yield* fixAll(100, instant(11))
          const inFlight = Option.getOrThrow(yield* lease(1, instant(12)))
          yield* campaigns.stop(stopped.id, "the plan's monthly email limit was reached", instant(13))
          expect(yield* statsOf(stopped.id)).toStrictEqual({ queued: 1, failed: 3 })
          expect(Option.getOrThrow(yield* campaigns.findById(organization.id, stopped.id))).toMatchObject({
            status: "failed",
            failureReason: "the plan's monthly email limit was reached"
          })
          // The batch in flight settles as it went.
          yield* campaigns.settle(inFlight.key, [{
            id: inFlight.recipients[0]!.message.id,
            status: "sent",
            providerId: `p-${randomUUID()}`,
            subject: "Hello"
          }], instant(14))
          expect(yield* statsOf(stopped.id)).toStrictEqual({ sent: 1, failed: 3 })

          yield* campaigns.start(cancelled.id, ["draft"], sendout, instant(20))
          yield* fixAll(100, instant(21))
          yield* campaigns.transition(cancelled.id, ["sending"], "cancelled", { at: instant(22) })
          assert.isFalse(yield* campaigns.anyDue(instant(23)))
          assert.isTrue(Option.isNone(yield* lease(10, instant(23))))
          expect(yield* campaigns.withdrawCancelled(2)).toBe(2)
          expect(yield* campaigns.withdrawCancelled(100)).toBe(2)
          expect(yield* statsOf(cancelled.id)).toStrictEqual({})
        }).pipe(deletingAfterwards([organization.id]))
      }))
  })
