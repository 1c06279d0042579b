import { assert, expect, layer } from "@effect/vitest"
import {
  type AudienceSelection,
  CampaignRepository,
  MessageRepository,
  OutgoingMail,
  SegmentAudience,
  SegmentRepository,
  SubscriberRepository,
  TagAssignments
} from "@roster/application"
import { Campaign, CampaignId, Segment, SegmentFilter, SegmentId, type Subscriber, type TagId } from "@roster/domain"
import { Effect, Option, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { deletingAfterwards, givenOrganization, givenTag, instant, type PersistenceLayer } from "./fixtures.js"
import { aCampaign, givenSendingCampaign, queueAll, sendout, tagged } from "./mail-fixtures.js"

const takeAll = (chunk: number) =>
  Effect.gen(function*() {
    const campaigns = yield* CampaignRepository
    const chunks: Array<{ readonly ids: ReadonlyArray<string>; readonly complete: boolean }> = []
    for (;;) {
      const taken = yield* campaigns.takeAudience(chunk)
      if (Option.isNone(taken)) return chunks
      chunks.push({ ids: taken.value.subscriberIds, complete: taken.value.complete })
    }
  })

/** An audience of tags as the use cases select it. */
const byTags = (tagIds: ReadonlyArray<TagId>, excludeTagIds: ReadonlyArray<TagId> = []): AudienceSelection => ({
  tagIds,
  excludeTagIds,
  filter: null,
  at: instant(0)
})

/** A segment of the organization, stored, with the filter given in its JSON form. */
const givenSegment = (organizationId: Campaign["organizationId"], filter: unknown) =>
  Effect.gen(function*() {
    const segment = new Segment({
      id: SegmentId.make(randomUUID()),
      organizationId,
      name: "Segment",
      description: null,
      filter: Schema.decodeUnknownSync(SegmentFilter)(filter),
      createdAt: instant(1),
      updatedAt: instant(1)
    })
    yield* (yield* SegmentRepository).insert(segment)
    return segment
  })

const statsOf = (id: CampaignId) =>
  Effect.map(Effect.flatMap(MessageRepository, (m) => m.campaignStats([id])), (stats) => stats.get(id) ?? {})

export const campaignRepositoryContract = (persistence: PersistenceLayer) =>
  layer(persistence)("CampaignRepository", (it) => {
    it.effect("stores campaigns, lists them newest first, and moves them only as the transition table says", () =>
      Effect.gen(function*() {
        const campaigns = yield* CampaignRepository
        const organization = yield* givenOrganization()
        yield* Effect.gen(function*() {
          const older = aCampaign(organization.id, instant(1))
          const newer = aCampaign(organization.id, instant(2), { name: "Later" })
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
          expect(yield* campaigns.count({ organizationId: organization.id, status: "sending" })).toBe(0)

          const renamed = new Campaign({ ...older, name: "Renamed", updatedAt: instant(3) })
          assert.isFalse(yield* campaigns.save(renamed, "scheduled"))
          assert.isTrue(yield* campaigns.save(renamed, "draft"))
          expect(yield* campaigns.findById(organization.id, older.id)).toStrictEqual(Option.some(renamed))

          const scheduled = yield* campaigns.transition(older.id, "schedule", {
            at: instant(4),
            sandboxed: true,
            scheduledAt: instant(90)
          })
          expect(Option.map(scheduled, (c) => [c.status, c.sandboxed, c.finishedAt, c.scheduledAt])).toStrictEqual(
            Option.some(["scheduled", true, null, instant(90)])
          )
          expect(yield* campaigns.findById(organization.id, older.id)).toStrictEqual(scheduled)
          // Of two moves from one state, the second finds it moved; a move from no state of its action is refused.
          assert.isTrue(Option.isNone(yield* campaigns.transition(older.id, "schedule", { at: instant(4) })))
          assert.isTrue(Option.isNone(yield* campaigns.transition(older.id, "complete", { at: instant(4) })))
          assert.isTrue(Option.isNone(yield* campaigns.transition(newer.id, "start", { at: instant(4), sendout, audience: byTags([]) })))

          // Due once its time has come, oldest schedule first.
          const due = (now: Date) => Effect.map(campaigns.dueScheduled(now, 1_000), (found) => found.map((c) => c.id))
          expect(yield* due(instant(89))).not.toContain(older.id)
          expect(yield* due(instant(90))).toContain(older.id)

          const unscheduled = yield* campaigns.transition(older.id, "unschedule", { at: instant(5), scheduledAt: null })
          expect(Option.map(unscheduled, (c) => [c.status, c.scheduledAt])).toStrictEqual(Option.some(["draft", null]))
          yield* campaigns.transition(older.id, "schedule", { at: instant(6), scheduledAt: instant(90) })
          const cancelled = yield* campaigns.transition(older.id, "cancel", { at: instant(7) })
          expect(Option.map(cancelled, (c) => [c.status, c.finishedAt])).toStrictEqual(Option.some(["cancelled", instant(7)]))
          expect(yield* due(instant(90))).not.toContain(older.id)
          assert.isTrue(Option.isNone(yield* campaigns.transition(older.id, "send", { at: instant(8), sendout, audience: byTags([]) })))
          expect(yield* campaigns.count({ organizationId: organization.id, status: "cancelled" })).toBe(1)
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("a scheduled campaign starts, or fails with why; a failed one is retried", () =>
      Effect.gen(function*() {
        const campaigns = yield* CampaignRepository
        const organization = yield* givenOrganization()
        yield* Effect.gen(function*() {
          yield* tagged(organization.id, [])
          const starting = aCampaign(organization.id, instant(1), { status: "scheduled", scheduledAt: instant(5) })
          const failing = aCampaign(organization.id, instant(1), { status: "scheduled", scheduledAt: instant(5) })
          yield* campaigns.insert(starting)
          yield* campaigns.insert(failing)
          const started = yield* campaigns.transition(starting.id, "start", { at: instant(6), sendout, audience: byTags([]) })
          expect(Option.map(started, (c) => [c.status, c.startedAt, c.finishedAt])).toStrictEqual(
            Option.some(["sending", instant(6), null])
          )
          const failed = yield* campaigns.transition(failing.id, "fail", { at: instant(6), failureReason: "could not start" })
          expect(Option.map(failed, (c) => [c.status, c.failureReason, c.finishedAt])).toStrictEqual(
            Option.some(["failed", "could not start", instant(6)])
          )
          const retried = yield* campaigns.transition(failing.id, "retry", { at: instant(7) })
          expect(Option.map(retried, (c) => [c.status, c.failureReason, c.finishedAt])).toStrictEqual(
            Option.some(["sending", null, null])
          )
          // A campaign retried keeps the time it first started.
          const stopped = yield* campaigns.transition(starting.id, "fail", { at: instant(8), failureReason: "limit" })
          expect(Option.map(stopped, (c) => c.status)).toStrictEqual(Option.some("failed"))
          const again = yield* campaigns.transition(starting.id, "retry", { at: instant(9) })
          expect(Option.map(again, (c) => [c.status, c.startedAt])).toStrictEqual(Option.some(["sending", instant(6)]))
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("counts the audience and takes it in chunks with the same condition, once, none created later", () =>
      Effect.gen(function*() {
        const campaigns = yield* CampaignRepository
        const organization = yield* givenOrganization()
        const other = yield* givenOrganization()
        yield* Effect.gen(function*() {
          const news = yield* givenTag(organization.id)
          const muted = yield* givenTag(organization.id)
          const members: Array<Subscriber> = []
          for (let i = 0; i < 5; i++) members.push(yield* tagged(organization.id, [news.id]))
          yield* tagged(organization.id, [news.id, muted.id])
          yield* tagged(organization.id, [news.id], { status: "unsubscribed" })
          yield* tagged(organization.id, [news.id], { status: "bounced" })
          yield* tagged(organization.id, [])
          yield* tagged(other.id, [])
          const audience = { tagIds: [news.id], excludeTagIds: [muted.id], segmentId: null }
          expect(yield* campaigns.countAudience(organization.id, byTags([news.id], [muted.id]), "marketing")).toBe(5)
          expect(yield* campaigns.countAudience(organization.id, byTags([news.id], [muted.id]), "transactional")).toBe(6)
          expect(yield* campaigns.countAudience(organization.id, byTags([]), "marketing")).toBe(7)

          const campaign = yield* givenSendingCampaign(organization.id, instant(10), { audience })
          expect([campaign.status, campaign.startedAt]).toStrictEqual(["sending", instant(10)])
          // Created after the start: not in the audience.
          yield* tagged(organization.id, [news.id], { createdAt: instant(11) })

          const chunks = yield* takeAll(2)
          const ids = members.map((m) => m.id as string).sort()
          expect(chunks).toStrictEqual([
            { ids: ids.slice(0, 2), complete: false },
            { ids: ids.slice(2, 4), complete: false },
            { ids: ids.slice(4), complete: true }
          ])
          // Taken whole, the audience gives nothing more.
          assert.isTrue(Option.isNone(yield* campaigns.takeAudience(2)))
          expect(yield* statsOf(campaign.id)).toStrictEqual({})
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
          const audience = { tagIds: [news.id], excludeTagIds: [muted.id], segmentId: null }
          expect(yield* campaigns.countAudience(organization.id, byTags([news.id], [muted.id]), "marketing")).toBe(4)

          const campaign = yield* givenSendingCampaign(organization.id, instant(10), { audience })
          const first = Option.getOrThrow(yield* campaigns.takeAudience(1))
          expect(first.campaign.id).toBe(campaign.id)
          expect(first.from).toBe(sendout.from)
          expect([first.subscriberIds, first.complete]).toStrictEqual([[people[0]!.id], false])
          // Midway, past the first chunk: two lose the tag, two get it, one is muted and one no longer is.
          for (const i of [4, 8]) yield* assignments.detach(organization.id, people[i]!.id, news.id)
          for (const i of [5, 9]) yield* assignments.attach(organization.id, people[i]!.id, [news.id], instant(12), null)
          yield* assignments.detach(organization.id, people[2]!.id, muted.id)
          yield* assignments.attach(organization.id, people[6]!.id, [muted.id], instant(12), null)
          expect(yield* campaigns.countAudience(organization.id, byTags([news.id], [muted.id]), "marketing")).toBe(4)

          const rest = yield* takeAll(2)
          expect(rest.flatMap((chunk) => chunk.ids)).toStrictEqual([4, 6, 8].map((i) => people[i]!.id))
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("an audience of a segment is who its filter holds in the kind's states, less excluded tags and those being erased, counted and fixed alike", () =>
      Effect.gen(function*() {
        const campaigns = yield* CampaignRepository
        const segments = yield* SegmentRepository
        const organization = yield* givenOrganization()
        const other = yield* givenOrganization()
        yield* Effect.gen(function*() {
          const muted = yield* givenTag(organization.id)
          const pro = { metadata: { plan: "pro" } }
          const members: Array<Subscriber> = []
          for (let i = 0; i < 3; i++) members.push(yield* tagged(organization.id, [], pro))
          yield* tagged(organization.id, [muted.id], pro)
          yield* tagged(organization.id, [], { ...pro, status: "unsubscribed" })
          yield* tagged(organization.id, [], { ...pro, status: "bounced" })
          yield* tagged(organization.id, [], { metadata: { plan: "free" } })
          const leaving = yield* tagged(organization.id, [], pro)
          yield* (yield* SubscriberRepository).requestErasure(organization.id, leaving.id, instant(2))
          yield* tagged(other.id, [], pro)
          const segment = yield* givenSegment(organization.id, { field: "metadata.plan", op: "eq", value: "pro" })
          const selection = (excludeTagIds: ReadonlyArray<TagId>): AudienceSelection => ({
            tagIds: [],
            excludeTagIds,
            filter: segment.filter,
            at: instant(10)
          })
          // The segment's own count holds every state; an audience only the states its kind reaches.
          expect(yield* (yield* SegmentAudience).count(organization.id, segment.filter, instant(10))).toBe(6)
          expect(yield* campaigns.countAudience(organization.id, selection([]), "marketing")).toBe(4)
          expect(yield* campaigns.countAudience(organization.id, selection([muted.id]), "marketing")).toBe(3)
          expect(yield* campaigns.countAudience(organization.id, selection([muted.id]), "transactional")).toBe(4)

          const campaign = yield* givenSendingCampaign(organization.id, instant(10), {
            audience: { tagIds: [], excludeTagIds: [muted.id], segmentId: segment.id }
          })
          expect(campaign.audience.segmentId).toBe(segment.id)
          // After the start, a new subscriber the segment holds and a new filter change nothing.
          yield* tagged(organization.id, [], { ...pro, createdAt: instant(11) })
          yield* segments.update(new Segment({ ...segment, filter: Schema.decodeUnknownSync(SegmentFilter)({ all: [] }), updatedAt: instant(11) }))
          const chunks = yield* takeAll(2)
          expect(chunks.flatMap((chunk) => chunk.ids)).toStrictEqual(members.map((m) => m.id as string).sort())
        }).pipe(deletingAfterwards([organization.id, other.id]))
      }))

    it.effect("names the campaigns whose audience is a segment and is not fixed yet, oldest first", () =>
      Effect.gen(function*() {
        const campaigns = yield* CampaignRepository
        const organization = yield* givenOrganization()
        const other = yield* givenOrganization()
        yield* Effect.gen(function*() {
          const used = SegmentId.make(randomUUID())
          const audience = { tagIds: [], excludeTagIds: [], segmentId: used }
          const stored = (organizationId: Campaign["organizationId"], second: number, fields: Partial<Campaign>) =>
            Effect.gen(function*() {
              const campaign = aCampaign(organizationId, instant(second), { audience, ...fields })
              yield* campaigns.insert(campaign)
              return campaign.id
            })
          const scheduled = yield* stored(organization.id, 2, { status: "scheduled", scheduledAt: instant(90) })
          const draft = yield* stored(organization.id, 1, {})
          const neverStarted = yield* stored(organization.id, 3, { status: "failed", failureReason: "could not start" })
          yield* stored(organization.id, 4, { status: "failed", startedAt: instant(4), failureReason: "1 failed" })
          yield* stored(organization.id, 5, { status: "sending", startedAt: instant(5) })
          yield* stored(organization.id, 6, { status: "sent", startedAt: instant(6), finishedAt: instant(7) })
          yield* stored(organization.id, 7, { status: "cancelled", finishedAt: instant(7) })
          yield* stored(organization.id, 8, { audience: { ...audience, segmentId: SegmentId.make(randomUUID()) } })
          yield* stored(organization.id, 9, { audience: { ...audience, segmentId: null } })
          yield* stored(other.id, 1, {})
          expect(yield* campaigns.usingSegment(organization.id, used)).toStrictEqual([draft, scheduled, neverStarted])
          expect(yield* campaigns.usingSegment(other.id, SegmentId.make(randomUUID()))).toStrictEqual([])
        }).pipe(deletingAfterwards([organization.id, other.id]))
      }))

    it.effect("a sending campaign ends only once done: its audience taken, nothing queued, its failures as counted", () =>
      Effect.gen(function*() {
        const campaigns = yield* CampaignRepository
        const outgoing = yield* OutgoingMail
        const organization = yield* givenOrganization()
        yield* Effect.gen(function*() {
          for (let i = 0; i < 3; i++) yield* tagged(organization.id, [])
          const campaign = yield* givenSendingCampaign(organization.id, instant(10))
          const finish = (failed: number, at: Date) =>
            campaigns.transition(campaign.id, failed > 0 ? "fail" : "complete", {
              at,
              failureReason: failed > 0 ? `${failed} failed` : null,
              whenDone: { failed }
            })
          // The audience is not taken yet.
          assert.isTrue(Option.isNone(yield* finish(0, instant(11))))
          expect(yield* campaigns.doneSending(10_000)).not.toContain(campaign.id)
          yield* queueAll(100, instant(11))
          // Taken, but its emails are queued.
          assert.isTrue(Option.isNone(yield* finish(0, instant(12))))
          expect(yield* campaigns.doneSending(10_000)).not.toContain(campaign.id)
          expect(yield* campaigns.doneSending(10, campaign.id)).toStrictEqual([])

          const batch = Option.getOrThrow(yield* outgoing.leaseCampaign({ limit: 10, leaseMs: 30_000, now: instant(13), newKey: randomUUID() }))
          yield* outgoing.settle(batch.key, batch.recipients.map((r, i) =>
            i === 0
              ? { id: r.message.id, status: "failed" as const, detail: "refused", subject: "" }
              : { id: r.message.id, status: "sent" as const, providerId: `p-${randomUUID()}`, subject: "Hello" }
          ), instant(14))
          expect(yield* campaigns.doneSending(10_000)).toContain(campaign.id)
          expect(yield* campaigns.doneSending(10, campaign.id)).toStrictEqual([campaign.id])
          expect(yield* campaigns.doneSending(10, CampaignId.make(randomUUID()))).toStrictEqual([])
          // A count of failures that is no longer true moves nothing.
          assert.isTrue(Option.isNone(yield* finish(0, instant(15))))
          const ended = yield* finish(1, instant(15))
          expect(Option.map(ended, (c) => [c.status, c.failureReason, c.finishedAt])).toStrictEqual(
            Option.some(["failed", "1 failed", instant(15)])
          )
          expect(yield* campaigns.doneSending(10_000)).not.toContain(campaign.id)
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("a cancelled campaign's audience is taken no further", () =>
      Effect.gen(function*() {
        const campaigns = yield* CampaignRepository
        const organization = yield* givenOrganization()
        yield* Effect.gen(function*() {
          for (let i = 0; i < 4; i++) yield* tagged(organization.id, [])
          const campaign = yield* givenSendingCampaign(organization.id, instant(10))
          const first = Option.getOrThrow(yield* campaigns.takeAudience(2))
          expect(first.subscriberIds).toHaveLength(2)
          const cancelled = yield* campaigns.transition(campaign.id, "cancel", { at: instant(11) })
          expect(Option.map(cancelled, (c) => [c.status, c.finishedAt])).toStrictEqual(Option.some(["cancelled", instant(11)]))
          expect(yield* takeAll(2)).toStrictEqual([])
          assert.isTrue(Option.isNone(yield* campaigns.transition(campaign.id, "retry", { at: instant(12) })))
        }).pipe(deletingAfterwards([organization.id]))
      }))
  })
