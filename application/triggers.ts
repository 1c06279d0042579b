import {
  EmailTrigger,
  type FiringStatus,
  InvalidInput,
  MessageId,
  type MessageKind,
  messageKindOr,
  reason,
  ResourceNotFound,
  type SegmentId,
  type TagId,
  type TemplateId,
  type TriggerEvent,
  TriggerId,
  type TriggerStatus
} from "@roster/domain"
import { Effect, Option } from "effect"
import { Emails } from "./emails.js"
import { Ids } from "./ports/ids.js"
import { OrganizationRepository } from "./ports/organization-repository.js"
import { SegmentAudience } from "./ports/segment-audience.js"
import { SegmentRepository } from "./ports/segment-repository.js"
import { SubscriberRepository } from "./ports/subscriber-repository.js"
import { TagRepository } from "./ports/tag-repository.js"
import { TemplateRepository } from "./ports/template-repository.js"
import { type DueFiring, TriggerRepository } from "./ports/trigger-repository.js"
import { requireTemplate } from "./support/campaign-content.js"
import { now } from "./support/clock.js"
import { cutPage, positionFromCursor } from "./support/keyset.js"
import { numberedPage, type PageNumberRequest, pageWindow } from "./support/page-numbers.js"
import { authorize, type Principal } from "./support/principal.js"
import { requireFound } from "./support/ownership.js"
import { operations } from "./support/operation.js"

export interface NewTrigger {
  readonly name: string
  readonly event: TriggerEvent
  readonly tagId?: TagId | null | undefined
  readonly templateId: TemplateId
  /** Only subscribers this segment matches when the wait ends get the email; `null` removes it. */
  readonly segmentId?: SegmentId | null | undefined
  readonly kind?: MessageKind | undefined
  readonly delaySeconds?: number | undefined
  readonly status?: TriggerStatus | undefined
  readonly data?: Readonly<Record<string, unknown>> | undefined
}

export type TriggerChanges = Partial<NewTrigger>

/** A trigger with how often it fired, by what came of it. */
export interface TriggerRecord {
  readonly trigger: EmailTrigger
  readonly firings: Readonly<Record<Exclude<FiringStatus, never>, number>>
}

const LIST_SORT = "created_at"

const noFirings = { pending: 0, sent: 0, skipped: 0, failed: 0 } as const

/**
 * Email triggers: a template sent to a subscriber, after an optional wait, when they are created
 * or given a tag. The worker fires them ({@link TriggerFiring}).
 */
export class Triggers extends Effect.Service<Triggers>()("roster/Triggers", {
  effect: Effect.gen(function*() {
    const operation = yield* operations
    const triggers = yield* TriggerRepository
    const templates = yield* TemplateRepository
    const tags = yield* TagRepository
    const segments = yield* SegmentRepository
    const ids = yield* Ids

    const owned = (principal: Principal, id: TriggerId) =>
      requireFound("trigger", id, triggers.findById(principal.organization.id, id))

    const withFirings = (items: ReadonlyArray<EmailTrigger>) =>
      Effect.map(triggers.firingCounts(items.map((t) => t.id)), (counts) =>
        items.map((trigger): TriggerRecord => ({ trigger, firings: { ...noFirings, ...counts.get(trigger.id) } })))

    const record = (trigger: EmailTrigger) => Effect.map(withFirings([trigger]), (records) => records[0]!)

    /**
     * The template is the organization's; a tag only for `tag.subscribed`, and the organization's;
     * a segment the organization's (another organization's is a 400 as a deleted one is).
     */
    const check = (principal: Principal, trigger: EmailTrigger) =>
      Effect.gen(function*() {
        if (trigger.templateId === null) {
          return yield* new InvalidInput({ field: "template_id", reason: reason("triggerTemplate") })
        }
        yield* requireTemplate(templates, principal.organization.id, trigger.templateId)
        if (trigger.segmentId !== null && Option.isNone(yield* segments.findById(principal.organization.id, trigger.segmentId))) {
          return yield* new InvalidInput({ field: "segment_id", reason: reason("noSegmentWithId", { id: trigger.segmentId }) })
        }
        if (trigger.tagId === null) return
        if (trigger.event !== "tag.subscribed") {
          return yield* new InvalidInput({ field: "tag_id", reason: reason("triggerTagEvent") })
        }
        if (Option.isNone(yield* tags.findById(principal.organization.id, trigger.tagId))) {
          return yield* new ResourceNotFound({ resource: "tag", id: trigger.tagId })
        }
      })

    const create = operation("Triggers.create")(function*(principal: Principal, input: NewTrigger) {
      yield* authorize(principal, "triggers:write")
      const at = yield* now
      const trigger = new EmailTrigger({
        id: TriggerId.make(yield* ids.next),
        organizationId: principal.organization.id,
        name: input.name,
        event: input.event,
        tagId: input.tagId ?? null,
        templateId: input.templateId,
        segmentId: input.segmentId ?? null,
        kind: messageKindOr(input.kind),
        delaySeconds: input.delaySeconds ?? 0,
        status: input.status ?? "active",
        data: input.data ?? {},
        createdAt: at,
        updatedAt: at
      })
      yield* check(principal, trigger)
      yield* triggers.insert(trigger)
      return yield* record(trigger)
    })

    const get = operation("Triggers.get")(function*(principal: Principal, id: TriggerId) {
      yield* authorize(principal, "triggers:read")
      return yield* record(yield* owned(principal, id))
    })

    const list = operation("Triggers.list")(function*(
      principal: Principal,
      query: { readonly limit: number; readonly cursor?: string | undefined }
    ) {
      yield* authorize(principal, "triggers:read")
      const after = yield* positionFromCursor(query.cursor, LIST_SORT, "asc")
      const organizationId = principal.organization.id
      const [rows, total] = yield* Effect.all([
        triggers.list({ organizationId, limit: query.limit + 1, after }),
        triggers.count(organizationId)
      ], { concurrency: 2 })
      const page = cutPage(rows, query.limit, LIST_SORT, "asc", (t) => t.createdAt.toISOString())
      return { items: yield* withFirings(page.items), nextCursor: page.nextCursor, total }
    })

    const listPage = operation("Triggers.listPage")(function*(principal: Principal, request: PageNumberRequest) {
      yield* authorize(principal, "triggers:read")
      const window = yield* pageWindow(request, [], [])
      const organizationId = principal.organization.id
      const [items, total] = yield* Effect.all([
        triggers.list({ organizationId, limit: window.limit, offset: window.offset }),
        triggers.count(organizationId)
      ], { concurrency: 2 })
      return numberedPage(yield* withFirings(items), total, request)
    })

    /** Fields left out stay; `status: "paused"` stops new firings, and waiting ones wait until it is active again. */
    const update = operation("Triggers.update")(function*(principal: Principal, id: TriggerId, changes: TriggerChanges) {
      yield* authorize(principal, "triggers:write")
      const current = yield* owned(principal, id)
      const event = changes.event ?? current.event
      const next = new EmailTrigger({
        ...current,
        name: changes.name ?? current.name,
        event,
        // A tag belongs to tag.subscribed: moving to another event drops it unless one is given.
        tagId: changes.tagId !== undefined ? changes.tagId : event === "tag.subscribed" ? current.tagId : null,
        templateId: changes.templateId ?? current.templateId,
        segmentId: changes.segmentId !== undefined ? changes.segmentId : current.segmentId,
        kind: changes.kind ?? current.kind,
        delaySeconds: changes.delaySeconds ?? current.delaySeconds,
        status: changes.status ?? current.status,
        data: changes.data ?? current.data,
        updatedAt: yield* now
      })
      yield* check(principal, next)
      yield* triggers.update(next)
      return yield* record(next)
    })

    const remove = operation("Triggers.remove")(function*(principal: Principal, id: TriggerId) {
      yield* authorize(principal, "triggers:write")
      yield* owned(principal, id)
      yield* triggers.delete(principal.organization.id, id)
    })

    return { create, get, list, listPage, update, remove } as const
  })
}) {}

/**
 * The worker's side of triggers: firings whose wait is over become emails, queued as single sends
 * are (rendered now, for the subscriber as they are now). A subscriber who is no longer active,
 * or whom the trigger's segment does not match now, gets none; a firing of a trigger whose
 * template was deleted sends nothing.
 */
export class TriggerFiring extends Effect.Service<TriggerFiring>()("roster/TriggerFiring", {
  effect: Effect.gen(function*() {
    const operation = yield* operations
    const triggers = yield* TriggerRepository
    const templates = yield* TemplateRepository
    const subscribers = yield* SubscriberRepository
    const organizations = yield* OrganizationRepository
    const segments = yield* SegmentRepository
    const audience = yield* SegmentAudience
    const emails = yield* Emails

    const fireOne = (firing: DueFiring) =>
      Effect.gen(function*() {
        const { trigger } = firing
        const at = yield* now
        const skip = (detail: string) => triggers.settle(firing.id, { status: "skipped", messageId: null, detail }, at)
        const subscriber = yield* subscribers.findById(trigger.organizationId, firing.subscriberId)
        if (Option.isNone(subscriber)) return yield* skip("the subscriber was deleted")
        if (subscriber.value.status !== "active") {
          return yield* skip(`the subscriber is ${subscriber.value.status}; triggers send to active subscribers only`)
        }
        if (trigger.segmentId !== null) {
          const segment = yield* segments.findById(trigger.organizationId, trigger.segmentId)
          if (Option.isNone(segment)) return yield* skip("the trigger's segment was deleted")
          if (!(yield* audience.matches(trigger.organizationId, segment.value.filter, at, firing.subscriberId))) {
            return yield* skip("the trigger's segment does not match the subscriber")
          }
        }
        const template = trigger.templateId === null
          ? Option.none()
          : yield* templates.findById(trigger.organizationId, trigger.templateId)
        if (Option.isNone(template)) return yield* skip("the trigger's template was deleted")
        const organization = yield* organizations.findById(trigger.organizationId)
        if (Option.isNone(organization)) return yield* skip("the organization was deleted")
        const queued = yield* Effect.either(emails.queue(organization.value, subscriber.value, {
          source: template.value,
          templateId: template.value.id,
          data: trigger.data,
          kind: trigger.kind,
          sandboxed: false,
          // The firing's own id: a firing taken over after a crash queues the same email, once.
          messageId: MessageId.make(firing.id)
        }))
        if (queued._tag === "Left") {
          return yield* triggers.settle(firing.id, { status: "failed", messageId: null, detail: queued.left.message }, at)
        }
        const { message } = queued.right
        return yield* triggers.settle(
          firing.id,
          message.status === "queued"
            ? { status: "sent", messageId: message.id, detail: null }
            : { status: "skipped", messageId: message.id, detail: message.error },
          at
        )
      })

    /** Fires up to `limit` due firings; how many. */
    const fireDue = operation("TriggerFiring.fireDue")((limit: number, leaseMs: number) =>
      Effect.gen(function*() {
        const due = yield* triggers.claimDue(yield* now, limit, leaseMs)
        yield* Effect.forEach(due, fireOne, { discard: true })
        return due.length
      }))

    return { fireDue } as const
  }),
  dependencies: [Emails.Default]
}) {}
