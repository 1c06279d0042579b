import { assert, expect, layer } from "@effect/vitest"
import { TemplateRepository, TriggerRepository } from "@roster/application"
import {
  DomainEvent,
  EmailTemplate,
  EmailTrigger,
  EventId,
  type EventType,
  type OrganizationId,
  SegmentId,
  TemplateId,
  TriggerId
} from "@roster/domain"
import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import { deletingAfterwards, givenOrganization, givenSubscriber, givenTag, instant, type PersistenceLayer } from "./fixtures.js"

const givenTemplate = (organizationId: OrganizationId) =>
  Effect.gen(function*() {
    const template = new EmailTemplate({
      id: TemplateId.make(randomUUID()),
      organizationId,
      name: "Welcome",
      subject: "Welcome",
      html: null,
      text: "Hi",
      createdAt: instant(0),
      updatedAt: instant(0)
    })
    yield* (yield* TemplateRepository).insert(template)
    return template
  })

const aTrigger = (organizationId: OrganizationId, templateId: TemplateId, fields: Partial<EmailTrigger> = {}) =>
  new EmailTrigger({
    id: TriggerId.make(randomUUID()),
    organizationId,
    name: "Welcome",
    event: "subscriber.created",
    tagId: null,
    templateId,
    segmentId: null,
    kind: "marketing",
    delaySeconds: 0,
    status: "active",
    data: { from: "Ada" },
    createdAt: instant(1),
    updatedAt: instant(1),
    ...fields
  })

const anEvent = (organizationId: OrganizationId, type: EventType, data: Record<string, unknown>, at: Date) =>
  new DomainEvent({ id: EventId.make(randomUUID()), organizationId, type, occurredAt: at, data })

export const triggerRepositoryContract = (persistence: PersistenceLayer) =>
  layer(persistence)("TriggerRepository", (it) => {
    it.effect("stores triggers, lists them oldest first, changes and deletes them within their organization", () =>
      Effect.gen(function*() {
        const triggers = yield* TriggerRepository
        const organization = yield* givenOrganization()
        const other = yield* givenOrganization()
        yield* Effect.gen(function*() {
          const template = yield* givenTemplate(organization.id)
          const segment = SegmentId.make(randomUUID())
          const first = aTrigger(organization.id, template.id)
          const second = aTrigger(organization.id, template.id, {
            name: "Later",
            segmentId: segment,
            createdAt: instant(2),
            updatedAt: instant(2)
          })
          yield* triggers.insert(second)
          yield* triggers.insert(first)
          expect(yield* triggers.findById(organization.id, second.id)).toStrictEqual(Option.some(second))
          expect(yield* triggers.usingSegment(organization.id, segment)).toStrictEqual([second.id])
          expect(yield* triggers.usingSegment(other.id, segment)).toStrictEqual([])
          expect(yield* triggers.findById(organization.id, first.id)).toStrictEqual(Option.some(first))
          assert.isTrue(Option.isNone(yield* triggers.findById(other.id, first.id)))
          expect(yield* triggers.list({ organizationId: organization.id, limit: 10 })).toStrictEqual([first, second])
          expect(yield* triggers.list({ organizationId: organization.id, limit: 10, offset: 1 })).toStrictEqual([second])
          expect(yield* triggers.count(organization.id)).toBe(2)
          const paused = new EmailTrigger({ ...first, status: "paused", delaySeconds: 60, segmentId: segment, updatedAt: instant(3) })
          yield* triggers.update(paused)
          expect(yield* triggers.findById(organization.id, first.id)).toStrictEqual(Option.some(paused))
          expect(yield* triggers.usingSegment(organization.id, segment)).toStrictEqual([first.id, second.id])
          yield* triggers.update(new EmailTrigger({ ...second, segmentId: null, updatedAt: instant(3) }))
          expect(yield* triggers.usingSegment(organization.id, segment)).toStrictEqual([first.id])
          assert.isFalse(yield* triggers.delete(other.id, first.id))
          assert.isTrue(yield* triggers.delete(organization.id, first.id))
          expect(yield* triggers.count(organization.id)).toBe(1)
          // The template deleted, the trigger stays without one.
          yield* (yield* TemplateRepository).delete(organization.id, template.id)
          expect(Option.getOrThrow(yield* triggers.findById(organization.id, second.id)).templateId).toBeNull()
        }).pipe(deletingAfterwards([organization.id, other.id]))
      }))

    it.effect("records a firing per trigger and subscriber once, after the delay, and hands due ones out to one claimer", () =>
      Effect.gen(function*() {
        const triggers = yield* TriggerRepository
        const organization = yield* givenOrganization()
        yield* Effect.gen(function*() {
          const template = yield* givenTemplate(organization.id)
          const vip = yield* givenTag(organization.id)
          const other = yield* givenTag(organization.id)
          const welcome = aTrigger(organization.id, template.id)
          const tagged = aTrigger(organization.id, template.id, { event: "tag.subscribed", tagId: vip.id, delaySeconds: 60 })
          const paused = aTrigger(organization.id, template.id, { status: "paused" })
          for (const t of [welcome, tagged, paused]) yield* triggers.insert(t)
          const reader = yield* givenSubscriber(organization.id)
          const created = anEvent(organization.id, "subscriber.created", { subscriber: { id: reader.id } }, instant(10))
          const gotVip = anEvent(organization.id, "tag.subscribed", { subscriber: { id: reader.id }, tag: { id: vip.id } }, instant(10))
          const gotOther = anEvent(organization.id, "tag.subscribed", { subscriber: { id: reader.id }, tag: { id: other.id } }, instant(10))
          const gone = anEvent(organization.id, "subscriber.created", { subscriber: { id: randomUUID() } }, instant(10))
          expect(yield* triggers.recordFirings([created, gotVip, gotOther, gone], instant(10))).toBe(2)
          // The same events again, or the event again later: nothing more.
          expect(yield* triggers.recordFirings([created, gotVip], instant(11))).toBe(0)
          expect(yield* triggers.recordFirings([anEvent(organization.id, "subscriber.created", { subscriber: { id: reader.id } }, instant(12))], instant(12))).toBe(0)

          const due = yield* triggers.claimDue(instant(20), 10, 30_000)
          expect(due.map((f) => [f.trigger.id, f.subscriberId])).toStrictEqual([[welcome.id, reader.id]])
          // Held by its claimer: not handed out again meanwhile.
          expect(yield* triggers.claimDue(instant(21), 10, 30_000)).toStrictEqual([])
          yield* triggers.settle(due[0]!.id, { status: "sent", messageId: null, detail: null }, instant(22))
          const later = yield* triggers.claimDue(instant(71), 10, 30_000)
          expect(later.map((f) => f.trigger.id)).toStrictEqual([tagged.id])
          yield* triggers.settle(later[0]!.id, { status: "skipped", messageId: null, detail: "unsubscribed" }, instant(72))
          // Settled firings are not handed out again.
          expect(yield* triggers.claimDue(instant(200), 10, 30_000)).toStrictEqual([])
          const counts = yield* triggers.firingCounts([welcome.id, tagged.id, paused.id])
          expect(counts.get(welcome.id)).toStrictEqual({ sent: 1 })
          expect(counts.get(tagged.id)).toStrictEqual({ skipped: 1 })
          assert.isFalse(counts.has(paused.id))
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("a firing claimed and never settled is handed out again once its lease runs out, and held again", () =>
      Effect.gen(function*() {
        const triggers = yield* TriggerRepository
        const organization = yield* givenOrganization()
        yield* Effect.gen(function*() {
          const template = yield* givenTemplate(organization.id)
          const welcome = aTrigger(organization.id, template.id)
          yield* triggers.insert(welcome)
          const reader = yield* givenSubscriber(organization.id)
          const created = anEvent(organization.id, "subscriber.created", { subscriber: { id: reader.id } }, instant(10))
          expect(yield* triggers.recordFirings([created], instant(10))).toBe(1)

          const first = yield* triggers.claimDue(instant(20), 10, 30_000)
          expect(first.map((f) => [f.trigger.id, f.subscriberId])).toStrictEqual([[welcome.id, reader.id]])
          // Its claimer stopped without settling it: held until the lease ends, then due again.
          expect(yield* triggers.claimDue(instant(49), 10, 30_000)).toStrictEqual([])
          const again = yield* triggers.claimDue(instant(50), 10, 30_000)
          expect(again.map((f) => f.id)).toStrictEqual([first[0]!.id])
          expect(yield* triggers.claimDue(instant(51), 10, 30_000)).toStrictEqual([])
          yield* triggers.settle(again[0]!.id, { status: "sent", messageId: null, detail: null }, instant(52))
          expect(yield* triggers.claimDue(instant(200), 10, 30_000)).toStrictEqual([])
          expect((yield* triggers.firingCounts([welcome.id])).get(welcome.id)).toStrictEqual({ sent: 1 })
        }).pipe(deletingAfterwards([organization.id]))
      }))
  })
