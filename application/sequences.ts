import {
  DomainEvent,
  type Enrollment,
  EnrollmentId,
  EventId,
  exitOf,
  InvalidInput,
  isTimeZone,
  MAX_TAGS_PER_SUBSCRIBER,
  MessageId,
  DEFAULT_TIME_ZONE,
  nextLocalTime,
  type OrganizationId,
  type ReEntry,
  reason,
  referencesOf,
  ResourceNotFound,
  type Sequence,
  type SequenceEntry,
  SequenceId,
  SequenceStateConflict,
  type SequenceStatus,
  type SequenceStep,
  stepToJson,
  type StepFigures,
  type Subscriber,
  SubscriberId,
  type Tag,
  type TagId,
  type TagSubscription,
  type TemplateId
} from "@roster/domain"
import { Effect, Either, Option } from "effect"
import { Emails, type EmailToQueue } from "./emails.js"
import { FormRepository } from "./ports/form-repository.js"
import { Ids } from "./ports/ids.js"
import { MessageRepository } from "./ports/message-repository.js"
import { OrganizationRepository } from "./ports/organization-repository.js"
import { Outbox } from "./ports/outbox.js"
import { SegmentAudience } from "./ports/segment-audience.js"
import { SegmentRepository } from "./ports/segment-repository.js"
import { type DueEnrollment, SequenceRepository, type StepRun } from "./ports/sequence-repository.js"
import { SubscriberRepository } from "./ports/subscriber-repository.js"
import { TagAssignments } from "./ports/tag-assignments.js"
import { TagRepository } from "./ports/tag-repository.js"
import { TemplateRepository } from "./ports/template-repository.js"
import { UnitOfWork } from "./ports/unit-of-work.js"
import { now } from "./support/clock.js"
import { tagSubscriptionData } from "./support/event-payloads.js"
import { cutPage, positionFromCursor } from "./support/keyset.js"
import { operations } from "./support/operation.js"
import { requireFound, requireOwned } from "./support/ownership.js"
import { numberedPage, type PageNumberRequest, pageWindow } from "./support/page-numbers.js"
import { authorize, type Principal } from "./support/principal.js"

export interface NewSequence {
  readonly name: string
  readonly entry: SequenceEntry
  readonly steps: ReadonlyArray<SequenceStep>
  readonly goalTagId?: TagId | null | undefined
  readonly reEntry?: ReEntry | undefined
  readonly timeZone?: string | undefined
}

export type SequenceChanges = Partial<NewSequence>

const LIST_SORT = "created_at"

/** A `svc_test_` key's enrollments send sandboxed mail: recorded, never delivered. */
const sandboxed = (principal: Principal): boolean =>
  principal.credential.kind === "api_key" && principal.credential.environment === "test"

const sameSteps = (a: ReadonlyArray<SequenceStep>, b: ReadonlyArray<SequenceStep>) =>
  JSON.stringify(a.map(stepToJson)) === JSON.stringify(b.map(stepToJson))

/**
 * Sequences: series of steps that subscribers are taken through once they enter. A sequence is
 * made a `draft`; it enrolls only while `active`; `paused`, it enrolls nobody and its enrollments
 * wait where they are. Changing the steps of a sequence that left its draft makes a new version:
 * those who enter afterwards run it, those in flight finish the version they started.
 */
export class Sequences extends Effect.Service<Sequences>()("roster/Sequences", {
  effect: Effect.gen(function*() {
    const operation = yield* operations
    const sequences = yield* SequenceRepository
    const templates = yield* TemplateRepository
    const tags = yield* TagRepository
    const segments = yield* SegmentRepository
    const forms = yield* FormRepository
    const subscribers = yield* SubscriberRepository
    const organizations = yield* OrganizationRepository
    const ids = yield* Ids

    const owned = (principal: Principal, id: SequenceId) =>
      requireFound("sequence", id, sequences.findById(principal.organization.id, id))

    /** What the sequence names is the organization's: templates, tags, a segment, a form; its zone is a zone. */
    const check = (principal: Principal, sequence: Sequence) =>
      Effect.gen(function*() {
        const organizationId = principal.organization.id
        if (!isTimeZone(sequence.timeZone)) {
          return yield* new InvalidInput({ field: "time_zone", reason: reason("unknownTimeZone") })
        }
        const refs = referencesOf(sequence.entry, sequence.steps, sequence.goalTagId)
        for (const id of refs.templates) {
          if (Option.isNone(yield* templates.findById(organizationId, id))) {
            return yield* new InvalidInput({ field: "steps", reason: reason("noTemplateWithId", { id }) })
          }
        }
        for (const id of refs.tags) {
          if (Option.isNone(yield* tags.findById(organizationId, id))) {
            const field = sequence.goalTagId === id ? "goal_tag_id" : sequence.entry.event === "tag.subscribed" ? "entry.tag_id" : "steps"
            return yield* new InvalidInput({ field, reason: reason("noTagWithId", { id }) })
          }
        }
        for (const id of refs.segments) {
          if (Option.isNone(yield* segments.findById(organizationId, id))) {
            return yield* new InvalidInput({ field: "entry.segment_id", reason: reason("noSegmentWithId", { id }) })
          }
        }
        if (sequence.entry.event === "subscriber.confirmed" && sequence.entry.formId !== null) {
          const id = sequence.entry.formId
          if (Option.isNone(yield* forms.findById(organizationId, id))) {
            return yield* new InvalidInput({ field: "entry.form_id", reason: reason("noFormWithId", { id }) })
          }
        }
      })

    const create = operation("Sequences.create")(function*(principal: Principal, input: NewSequence) {
      yield* authorize(principal, "sequences:write")
      const at = yield* now
      const sequence: Sequence = {
        id: SequenceId.make(yield* ids.next),
        organizationId: principal.organization.id,
        name: input.name,
        status: "draft",
        version: 1,
        entry: input.entry,
        steps: input.steps,
        goalTagId: input.goalTagId ?? null,
        reEntry: input.reEntry ?? "once",
        // Left out, the organization's own zone as it is now.
        timeZone: input.timeZone ??
          Option.getOrElse(yield* organizations.timeZoneOf(principal.organization.id), () => DEFAULT_TIME_ZONE),
        createdAt: at,
        updatedAt: at
      }
      yield* check(principal, sequence)
      yield* sequences.insert(sequence)
      return sequence
    })

    const get = operation("Sequences.get")(function*(principal: Principal, id: SequenceId) {
      yield* authorize(principal, "sequences:read")
      return yield* owned(principal, id)
    })

    const list = operation("Sequences.list")(function*(
      principal: Principal,
      query: { readonly limit: number; readonly cursor?: string | undefined }
    ) {
      yield* authorize(principal, "sequences:read")
      const after = yield* positionFromCursor(query.cursor, LIST_SORT, "asc")
      const organizationId = principal.organization.id
      const [rows, total] = yield* Effect.all([
        sequences.list({ organizationId, limit: query.limit + 1, after }),
        sequences.count(organizationId)
      ], { concurrency: 2 })
      const page = cutPage(rows, query.limit, LIST_SORT, "asc", (s) => s.createdAt.toISOString())
      return { items: page.items, nextCursor: page.nextCursor, total }
    })

    const listPage = operation("Sequences.listPage")(function*(principal: Principal, request: PageNumberRequest) {
      yield* authorize(principal, "sequences:read")
      const window = yield* pageWindow(request, [], [])
      const organizationId = principal.organization.id
      const [items, total] = yield* Effect.all([
        sequences.list({ organizationId, limit: window.limit, offset: window.offset }),
        sequences.count(organizationId)
      ], { concurrency: 2 })
      return numberedPage(items, total, request)
    })

    /**
     * Fields left out stay. New steps of a sequence that is active or paused make a new version,
     * for those who enter from now on; a draft's steps are simply replaced.
     */
    const update = operation("Sequences.update")(function*(principal: Principal, id: SequenceId, changes: SequenceChanges) {
      yield* authorize(principal, "sequences:write")
      const current = yield* owned(principal, id)
      const steps = changes.steps ?? current.steps
      const next: Sequence = {
        ...current,
        name: changes.name ?? current.name,
        entry: changes.entry ?? current.entry,
        steps,
        goalTagId: changes.goalTagId !== undefined ? changes.goalTagId : current.goalTagId,
        reEntry: changes.reEntry ?? current.reEntry,
        timeZone: changes.timeZone ?? current.timeZone,
        version: current.status !== "draft" && !sameSteps(steps, current.steps) ? current.version + 1 : current.version,
        updatedAt: yield* now
      }
      yield* check(principal, next)
      yield* sequences.update(next)
      return next
    })

    const setStatus = (name: string, status: SequenceStatus) =>
      operation(name)(function*(principal: Principal, id: SequenceId) {
        yield* authorize(principal, "sequences:write")
        const current = yield* owned(principal, id)
        if (current.status === status) return current
        // What it names may have gone since it was saved (a template deleted): it starts only whole.
        if (status === "active") yield* check(principal, current)
        const next: Sequence = { ...current, status, updatedAt: yield* now }
        yield* sequences.update(next)
        return next
      })

    /**
     * Starts enrolling (again); a paused sequence's enrollments go on from where they waited. A
     * sequence whose template, tag, segment or form is gone is refused as a change naming it is.
     */
    const activate = setStatus("Sequences.activate", "active")
    /** Stops enrolling and moving: enrollments wait where they are until it is active again. */
    const pause = setStatus("Sequences.pause", "paused")

    const remove = operation("Sequences.remove")(function*(principal: Principal, id: SequenceId) {
      yield* authorize(principal, "sequences:write")
      yield* owned(principal, id)
      yield* sequences.delete(principal.organization.id, id)
    })

    /**
     * Enrolls a subscriber of the organization into an active sequence, at its first step now.
     * One in it already, or once in a sequence that enrolls once, is refused naming `subscriber_id`.
     */
    const enroll = operation("Sequences.enroll")(function*(principal: Principal, id: SequenceId, subscriberId: SubscriberId) {
      yield* authorize(principal, "sequences:write")
      const organizationId = principal.organization.id
      const sequence = yield* owned(principal, id)
      yield* requireOwned("subscriber", subscriberId, subscribers.findById(organizationId, subscriberId), () =>
        subscribers.organizationOf(subscriberId))
      if (sequence.status !== "active") {
        return yield* new SequenceStateConflict({ id, status: sequence.status, action: "enrolling" })
      }
      const made = yield* sequences.enroll(
        [{ id: EnrollmentId.make(yield* ids.next), sequence, subscriberId, sandboxed: sandboxed(principal) }],
        yield* now
      )
      if (made.length === 0) {
        return yield* new InvalidInput({
          field: "subscriber_id",
          reason: reason(sequence.reEntry === "once" ? "enrolledOnce" : "enrolledNow")
        })
      }
      return made[0]!
    })

    /** Takes the subscriber out of the sequence at the step they are at; 404 when they are not in it. */
    const unenroll = operation("Sequences.unenroll")(function*(principal: Principal, id: SequenceId, subscriberId: SubscriberId) {
      yield* authorize(principal, "sequences:write")
      yield* owned(principal, id)
      const ended = yield* sequences.end(principal.organization.id, id, subscriberId, "removed", yield* now)
      if (Option.isNone(ended)) return yield* new ResourceNotFound({ resource: "enrollment", id: subscriberId })
      return ended.value
    })

    const enrollments = operation("Sequences.enrollments")(function*(
      principal: Principal,
      id: SequenceId,
      query: { readonly limit: number; readonly cursor?: string | undefined }
    ) {
      yield* authorize(principal, "sequences:read")
      yield* owned(principal, id)
      const after = yield* positionFromCursor(query.cursor, LIST_SORT, "asc")
      const organizationId = principal.organization.id
      const [rows, total] = yield* Effect.all([
        sequences.listEnrollments({ organizationId, sequenceId: id, limit: query.limit + 1, after }),
        sequences.countEnrollments(organizationId, id)
      ], { concurrency: 2 })
      const page = cutPage(rows, query.limit, LIST_SORT, "asc", (e) => e.enteredAt.toISOString())
      return { items: page.items, nextCursor: page.nextCursor, total }
    })

    const enrollmentsPage = operation("Sequences.enrollmentsPage")(function*(
      principal: Principal,
      id: SequenceId,
      request: PageNumberRequest
    ) {
      yield* authorize(principal, "sequences:read")
      yield* owned(principal, id)
      const window = yield* pageWindow(request, [], [])
      const organizationId = principal.organization.id
      const [items, total] = yield* Effect.all([
        sequences.listEnrollments({ organizationId, sequenceId: id, limit: window.limit, offset: window.offset }),
        sequences.countEnrollments(organizationId, id)
      ], { concurrency: 2 })
      return numberedPage(items, total, request)
    })

    /**
     * How many entered each of these sequences of the organization, and how many are in it now;
     * a sequence nobody entered (or another organization's) counts none.
     */
    const enrollmentCounts = operation("Sequences.enrollmentCounts")(function*(principal: Principal, ids: ReadonlyArray<SequenceId>) {
      yield* authorize(principal, "sequences:read")
      return yield* sequences.enrollmentCounts(principal.organization.id, ids)
    })

    /**
     * Each step's figures: the current version's steps in order, then steps of older versions that
     * enrollments reached. `entered` counts those who reached the step: who left it onward, who
     * ended there, who are at it now.
     */
    const figures = operation("Sequences.figures")(function*(principal: Principal, id: SequenceId) {
      yield* authorize(principal, "sequences:read")
      const sequence = yield* owned(principal, id)
      const recorded = new Map((yield* sequences.figures(id)).map((f) => [f.step, f]))
      const names = [...sequence.steps.map((s) => s.name), ...[...recorded.keys()].filter((n) => !sequence.steps.some((s) => s.name === n))]
      return names.map((step): StepFigures => {
        const f = recorded.get(step)
        return {
          step,
          entered: f === undefined ? 0 : f.completed + f.exited + f.current,
          completed: f?.completed ?? 0,
          exited: f?.exited ?? 0,
          emailsSent: f?.emailsSent ?? 0,
          opened: f?.opened ?? 0,
          clicked: f?.clicked ?? 0
        }
      })
    })

    return {
      create,
      get,
      list,
      listPage,
      update,
      activate,
      pause,
      remove,
      enroll,
      unenroll,
      enrollments,
      enrollmentsPage,
      enrollmentCounts,
      figures
    } as const
  })
}) {}

/** How far one claim takes an enrollment at most: a sequence without loops runs each step once. */
const stepsPerClaim = (steps: ReadonlyArray<SequenceStep>) => steps.length + 1

/** An email a walk asked for: queued with the rest of the batch's, under the id the walk gave it. */
interface AskedEmail {
  readonly request: EmailToQueue & { readonly messageId: MessageId }
  /** The walk's step run that records it. */
  readonly run: number
}

/** Where one enrollment's walk through its due steps got, before the batch's emails are queued. */
interface Walk {
  readonly due: DueEnrollment
  readonly runs: Array<StepRun>
  readonly fields: Partial<Enrollment>
  readonly emails: ReadonlyArray<AskedEmail>
}

/**
 * The worker's side of sequences. Entries: recorded events enter subscribers into the sequences
 * listening for them, in the transaction that takes the events. Steps: due enrollments are taken
 * under a row lock inside one transaction, and each runs its steps up to its next wait or its end;
 * the emails queued, the tags changed, the steps recorded and the enrollment's move all commit
 * together or not at all, so a worker that dies mid-batch leaves the batch to another, untouched.
 * A batch is worked as one: its subscribers are read and locked together, each enrollment walks its
 * steps in memory, and the emails the walks asked for are rendered and queued together, as are
 * the enrollments' moves.
 */
export class SequenceEngine extends Effect.Service<SequenceEngine>()("roster/SequenceEngine", {
  effect: Effect.gen(function*() {
    const operation = yield* operations
    const sequences = yield* SequenceRepository
    const subscribers = yield* SubscriberRepository
    const assignments = yield* TagAssignments
    const tags = yield* TagRepository
    const templates = yield* TemplateRepository
    const organizations = yield* OrganizationRepository
    const audience = yield* SegmentAudience
    const messages = yield* MessageRepository
    const outbox = yield* Outbox
    const unitOfWork = yield* UnitOfWork
    const emails = yield* Emails
    const ids = yield* Ids

    /** Reads each of an organization's records once in a batch. */
    const memo = <K extends string, V>(read: (organizationId: OrganizationId, id: K) => Effect.Effect<V>) => {
      const known = new Map<string, V>()
      return (organizationId: OrganizationId, id: K) => {
        const key = `${organizationId}:${id}`
        return known.has(key)
          ? Effect.succeed(known.get(key)!)
          : Effect.tap(read(organizationId, id), (value) => Effect.sync(() => known.set(key, value)))
      }
    }

    const tagEvent = (subscriber: Subscriber, tag: Tag, type: "tag.subscribed" | "tag.unsubscribed", at: Date) =>
      Effect.gen(function*() {
        const id = yield* ids.next
        yield* outbox.record([
          new DomainEvent({
            id: EventId.make(id),
            organizationId: subscriber.organizationId,
            type,
            occurredAt: at,
            data: tagSubscriptionData(subscriber, tag)
          }, true)
        ])
      })

    /** Whether the branch's condition holds for the subscriber now. */
    const holds = (
      step: Extract<SequenceStep, { type: "branch" }>,
      subscriber: Subscriber,
      carried: ReadonlySet<TagId>,
      lastMessageId: Enrollment["lastMessageId"],
      at: Date
    ) =>
      Effect.gen(function*() {
        const { condition } = step
        switch (condition.type) {
          case "filter":
            return yield* audience.matches(subscriber.organizationId, condition.filter, at, subscriber.id)
          case "has_tag":
            return carried.has(condition.tagId)
          case "opened_previous_email":
          case "clicked_previous_email": {
            if (lastMessageId === null) return false
            const message = yield* messages.findById(subscriber.organizationId, lastMessageId)
            if (Option.isNone(message)) return false
            const status = message.value.status
            return condition.type === "clicked_previous_email" ? status === "clicked" : status === "opened" || status === "clicked"
          }
        }
      })

    /** The zone a wait until a time of day keeps for the subscriber. */
    const zoneOf = (step: Extract<SequenceStep, { type: "wait_until" }>, subscriber: Subscriber, sequence: Sequence) => {
      const named = step.timeZoneField === null ? undefined : subscriber.metadata[step.timeZoneField]
      return typeof named === "string" && isTimeZone(named) ? named : sequence.timeZone
    }

    /**
     * What one batch reads once: its templates, tags and organizations, and its subscribers' tags
     * as they were when it took them (`tagsChanged` once a step of the batch added or removed one).
     */
    const batchReads = () => ({
      template: memo((organizationId, id: TemplateId) => templates.findById(organizationId, id)),
      tag: memo((organizationId, id: TagId) => tags.findById(organizationId, id)),
      organization: memo((organizationId, _: "") => organizations.findById(organizationId)),
      tagsOf: new Map<OrganizationId, ReadonlyMap<SubscriberId, ReadonlyArray<TagSubscription>>>(),
      tagsChanged: false
    })

    /**
     * Walks one enrollment through its due steps, up to its next wait or its end. Tag changes are
     * made as the walk passes them; emails are asked for, to be queued with the batch's.
     */
    const walk = (
      due: DueEnrollment,
      subscriber: Subscriber | undefined,
      carried: Set<TagId>,
      reads: ReturnType<typeof batchReads>,
      at: Date
    ) =>
      Effect.gen(function*() {
        const { enrollment, sequence, steps } = due
        const runs: Array<StepRun> = []
        const asked: Array<AskedEmail> = []
        const done = (fields: Partial<Enrollment>): Walk => ({ due, runs, fields, emails: asked })
        if (subscriber === undefined) return done({ state: "exited", exitReason: "removed", nextRunAt: null, waiting: false })
        const exit = exitOf(subscriber.status, sequence.goalTagId, [...carried])
        if (exit !== null) {
          runs.push({ step: enrollment.stepName, outcome: "exited", messageId: null, at })
          return done({ state: "exited", exitReason: exit, nextRunAt: null, waiting: false })
        }
        let index = enrollment.stepIndex
        let lastMessageId = enrollment.lastMessageId
        if (enrollment.waiting) {
          runs.push({ step: steps[index]!.name, outcome: "completed", messageId: null, at })
          index++
        }
        for (let taken = 0; taken < stepsPerClaim(steps); taken++) {
          const step = steps[index]
          if (step === undefined) break
          const stay = (nextRunAt: Date) => done({ stepIndex: index, stepName: step.name, waiting: true, nextRunAt, lastMessageId })
          switch (step.type) {
            case "wait":
              return stay(new Date(at.getTime() + step.seconds * 1000))
            case "wait_until":
              return stay(nextLocalTime(at, step, zoneOf(step, subscriber, sequence)))
            case "send_email": {
              let messageId: Enrollment["lastMessageId"] = null
              const template = yield* reads.template(subscriber.organizationId, step.templateId)
              if (Option.isSome(template)) {
                messageId = MessageId.make(yield* ids.next)
                asked.push({
                  run: runs.length,
                  request: {
                    recipient: subscriber,
                    source: template.value,
                    templateId: template.value.id,
                    data: step.data,
                    kind: step.kind,
                    sandboxed: enrollment.sandboxed,
                    messageId
                  }
                })
                lastMessageId = messageId
              }
              runs.push({ step: step.name, outcome: "completed", messageId, at })
              index++
              break
            }
            case "add_tag": {
              const tag = yield* reads.tag(subscriber.organizationId, step.tagId)
              if (Option.isSome(tag)) {
                const added = yield* assignments.attach(subscriber.organizationId, subscriber.id, [step.tagId], at, MAX_TAGS_PER_SUBSCRIBER)
                if (Option.isSome(added) && added.value.length > 0) {
                  reads.tagsChanged = true
                  carried.add(step.tagId)
                  yield* tagEvent(subscriber, tag.value, "tag.subscribed", at)
                }
              }
              runs.push({ step: step.name, outcome: "completed", messageId: null, at })
              index++
              break
            }
            case "remove_tag": {
              if (yield* assignments.detach(subscriber.organizationId, subscriber.id, step.tagId)) {
                reads.tagsChanged = true
                carried.delete(step.tagId)
                const tag = yield* reads.tag(subscriber.organizationId, step.tagId)
                if (Option.isSome(tag)) yield* tagEvent(subscriber, tag.value, "tag.unsubscribed", at)
              }
              runs.push({ step: step.name, outcome: "completed", messageId: null, at })
              index++
              break
            }
            case "branch": {
              const yes = yield* holds(step, subscriber, carried, lastMessageId, at)
              runs.push({ step: step.name, outcome: "completed", messageId: null, at })
              const target = yes ? step.goTo : step.elseGoTo
              index = target === null ? index + 1 : steps.findIndex((s) => s.name === target)
              break
            }
            case "end":
              runs.push({ step: step.name, outcome: "completed", messageId: null, at })
              return done({ state: "completed", stepIndex: index, stepName: step.name, waiting: false, nextRunAt: null, lastMessageId })
          }
        }
        const last = Math.min(index, steps.length - 1)
        return done({ state: "completed", stepIndex: last, stepName: steps[last]!.name, waiting: false, nextRunAt: null, lastMessageId })
      })

    /**
     * Queues the emails the walks asked for, each organization's together. An email that could not
     * be queued (a template that no longer renders, the plan's monthly limit) is logged, its step
     * run records no message, and the enrollment goes on as if it had not been sent.
     */
    const queueAsked = (walks: ReadonlyArray<Walk>, reads: ReturnType<typeof batchReads>) =>
      Effect.gen(function*() {
        const byOrganization = new Map<OrganizationId, Array<AskedEmail & { readonly walk: Walk }>>()
        for (const walk of walks) {
          for (const email of walk.emails) {
            const organizationId = walk.due.enrollment.organizationId
            const group = byOrganization.get(organizationId) ?? []
            group.push({ ...email, walk })
            byOrganization.set(organizationId, group)
          }
        }
        const refused = new Set<MessageId>()
        for (const [organizationId, asked] of byOrganization) {
          const organization = yield* reads.organization(organizationId, "")
          if (Option.isNone(organization)) {
            for (const email of asked) refused.add(email.request.messageId)
            continue
          }
          // The organization and the recipients' tags as this batch read them, unless a step changed tags.
          const outcomes = yield* emails.queueMany(organization.value, asked.map((email) => email.request), {
            organization: organization.value,
            tags: reads.tagsChanged ? undefined : reads.tagsOf.get(organizationId)
          })
          yield* Effect.forEach(outcomes, (outcome, i) => {
            if (Either.isRight(outcome)) return Effect.void
            const { request, walk } = asked[i]!
            refused.add(request.messageId)
            return Effect.logWarning(`sequence step sent no email: ${outcome.left.message}`).pipe(
              Effect.annotateLogs({
                sequence_id: walk.due.sequence.id,
                enrollment_id: walk.due.enrollment.id,
                step: walk.runs[asked[i]!.run]!.step
              })
            )
          }, { discard: true })
        }
        if (refused.size === 0) return
        for (const walk of walks) {
          if (walk.emails.length === 0) continue
          let last = walk.due.enrollment.lastMessageId
          for (const email of walk.emails) {
            if (refused.has(email.request.messageId)) walk.runs[email.run] = { ...walk.runs[email.run]!, messageId: null }
            else last = email.request.messageId
          }
          if (walk.fields.lastMessageId !== undefined) (walk.fields as { lastMessageId: Enrollment["lastMessageId"] }).lastMessageId = last
        }
      })

    /** Runs up to `limit` due enrollments in one transaction; how many. */
    const runDue = operation("SequenceEngine.runDue")((limit: number) =>
      unitOfWork.transaction(Effect.gen(function*() {
        const at = yield* now
        const due = yield* sequences.claimDue(at, limit)
        if (due.length === 0) return 0
        const reads = batchReads()
        // Each organization's subscribers read and locked together, in id order, with their tags.
        const byOrganization = new Map<OrganizationId, Array<SubscriberId>>()
        for (const { enrollment } of due) {
          const group = byOrganization.get(enrollment.organizationId) ?? []
          group.push(enrollment.subscriberId)
          byOrganization.set(enrollment.organizationId, group)
        }
        const found = new Map<SubscriberId, Subscriber>()
        const carried = new Map<SubscriberId, Set<TagId>>()
        for (const organizationId of [...byOrganization.keys()].sort()) {
          const subscriberIds = byOrganization.get(organizationId)!
          for (const subscriber of yield* subscribers.findManyForUpdate(organizationId, subscriberIds)) {
            found.set(subscriber.id, subscriber)
          }
          const held = yield* assignments.tagsOf(organizationId, subscriberIds)
          reads.tagsOf.set(organizationId, held)
          for (const [id, subscriptions] of held) carried.set(id, new Set(subscriptions.map((s) => s.tag.id)))
        }
        const walks: Array<Walk> = []
        for (const item of due) {
          const { subscriberId } = item.enrollment
          const tagsOfSubscriber = carried.get(subscriberId) ?? new Set<TagId>()
          carried.set(subscriberId, tagsOfSubscriber)
          walks.push(yield* walk(item, found.get(subscriberId), tagsOfSubscriber, reads, at))
        }
        yield* queueAsked(walks, reads)
        yield* sequences.advance(walks.map(({ due, fields, runs }) => ({
          enrollment: { ...due.enrollment, ...fields, updatedAt: at },
          runs
        })))
        return due.length
      })))

    return { runDue } as const
  }),
  dependencies: [Emails.Default]
}) {}
