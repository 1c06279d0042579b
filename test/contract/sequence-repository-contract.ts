import { assert, expect, layer } from "@effect/vitest"
import { SequenceRepository, SubscriberRepository, UnitOfWork } from "@roster/application"
import {
  decodeSteps,
  type Enrollment,
  EnrollmentId,
  type OrganizationId,
  type Sequence,
  SequenceId,
  type SubscriberId,
  TemplateId
} from "@roster/domain"
import { Effect, Either, Option } from "effect"
import { randomUUID } from "node:crypto"
import { deletingAfterwards, givenOrganization, givenSubscriber, instant, type PersistenceLayer } from "./fixtures.js"
import { givenMessage } from "./mail-fixtures.js"

const template = TemplateId.make(randomUUID())

const stepsOf = (json: unknown) => Either.getOrThrow(decodeSteps(json))

export const aSequence = (organizationId: OrganizationId, fields: Partial<Sequence> = {}): Sequence => ({
  id: SequenceId.make(randomUUID()),
  organizationId,
  name: "Welcome",
  status: "active",
  version: 1,
  entry: { event: "subscriber.created" },
  steps: stepsOf([{ name: "hello", send_email: { template_id: template } }, { name: "pause", wait: "P1D" }, { name: "bye", end: true }]),
  goalTagId: null,
  reEntry: "once",
  timeZone: "Europe/Berlin",
  createdAt: instant(1),
  updatedAt: instant(1),
  ...fields
})

export const enrollOne = (sequence: Sequence, subscriberId: SubscriberId, at: Date) =>
  Effect.flatMap(SequenceRepository, (sequences) =>
    sequences.enroll([{ id: EnrollmentId.make(randomUUID()), sequence, subscriberId }], at))

export const sequenceRepositoryContract = (persistence: PersistenceLayer) =>
  layer(persistence)("SequenceRepository", (it) => {
    it.effect("stores sequences with every version of their steps, lists them oldest first, deletes them within their organization", () =>
      Effect.gen(function*() {
        const sequences = yield* SequenceRepository
        const organization = yield* givenOrganization()
        const other = yield* givenOrganization()
        yield* Effect.gen(function*() {
          const first = aSequence(organization.id)
          const second = aSequence(organization.id, {
            name: "Drip",
            status: "draft",
            entry: { event: "api" },
            createdAt: instant(2),
            updatedAt: instant(2)
          })
          yield* sequences.insert(second)
          yield* sequences.insert(first)
          expect(yield* sequences.findById(organization.id, first.id)).toStrictEqual(Option.some(first))
          assert.isTrue(Option.isNone(yield* sequences.findById(other.id, first.id)))
          expect(yield* sequences.list({ organizationId: organization.id, limit: 10 })).toStrictEqual([first, second])
          expect(yield* sequences.list({ organizationId: organization.id, limit: 10, offset: 1 })).toStrictEqual([second])
          expect(yield* sequences.list({ organizationId: organization.id, limit: 10, after: { value: instant(1).toISOString(), id: first.id } }))
            .toStrictEqual([second])
          expect(yield* sequences.count(organization.id)).toBe(2)
          // Only active sequences that an event enters are listening.
          expect(yield* sequences.listening([organization.id, other.id])).toStrictEqual([first])
          yield* sequences.update({ ...second, status: "active" })
          expect(yield* sequences.listening([organization.id])).toStrictEqual([first])

          // A subscriber enrolled under version 1 keeps its steps after version 2 is made.
          const reader = yield* givenSubscriber(organization.id)
          yield* enrollOne(first, reader.id, instant(10))
          const changed = aSequence(organization.id, {
            ...first,
            version: 2,
            steps: stepsOf([{ name: "other", end: true }]),
            updatedAt: instant(11)
          })
          yield* sequences.update(changed)
          expect(yield* sequences.findById(organization.id, first.id)).toStrictEqual(Option.some(changed))
          const due = yield* (yield* UnitOfWork).transaction(sequences.claimDue(instant(10), 10))
          expect(due.map((d) => [d.sequence.id, d.enrollment.version, d.steps])).toStrictEqual([[first.id, 1, first.steps]])

          assert.isFalse(yield* sequences.delete(other.id, first.id))
          assert.isTrue(yield* sequences.delete(organization.id, first.id))
          expect(yield* sequences.count(organization.id)).toBe(1)
          expect(yield* sequences.findEnrollment(organization.id, first.id, reader.id)).toStrictEqual(Option.none())
        }).pipe(deletingAfterwards([organization.id, other.id]))
      }))

    it.effect("enrolls by the re-entry rule, only subscribers of the organization, only into active sequences", () =>
      Effect.gen(function*() {
        const sequences = yield* SequenceRepository
        const organization = yield* givenOrganization()
        const other = yield* givenOrganization()
        yield* Effect.gen(function*() {
          const once = aSequence(organization.id)
          const each = aSequence(organization.id, { reEntry: "each_time", createdAt: instant(2) })
          const paused = aSequence(organization.id, { status: "paused", createdAt: instant(3) })
          for (const s of [once, each, paused]) yield* sequences.insert(s)
          const reader = yield* givenSubscriber(organization.id)
          const stranger = yield* givenSubscriber(other.id)

          const made = yield* sequences.enroll([
            { id: EnrollmentId.make(randomUUID()), sequence: once, subscriberId: reader.id },
            { id: EnrollmentId.make(randomUUID()), sequence: once, subscriberId: reader.id },
            { id: EnrollmentId.make(randomUUID()), sequence: each, subscriberId: reader.id },
            { id: EnrollmentId.make(randomUUID()), sequence: paused, subscriberId: reader.id },
            { id: EnrollmentId.make(randomUUID()), sequence: once, subscriberId: stranger.id }
          ], instant(10))
          expect(made.map((e) => [e.sequenceId, e.subscriberId])).toStrictEqual([[once.id, reader.id], [each.id, reader.id]])
          const first: Enrollment = made[0]!
          expect(first).toMatchObject({
            organizationId: organization.id,
            version: 1,
            state: "active",
            stepIndex: 0,
            stepName: "hello",
            waiting: false,
            nextRunAt: instant(10),
            lastMessageId: null,
            exitReason: null,
            sandboxed: false,
            stepsRun: 0,
            enteredAt: instant(10)
          })
          expect(yield* sequences.findEnrollment(organization.id, once.id, reader.id)).toStrictEqual(Option.some(first))
          expect(yield* sequences.findEnrollment(other.id, once.id, reader.id)).toStrictEqual(Option.none())

          // Still in both: neither enrolls again.
          expect(yield* enrollOne(each, reader.id, instant(11))).toStrictEqual([])
          // Ended: `each_time` enrolls again, `once` never.
          const ended = yield* sequences.end(organization.id, each.id, reader.id, "removed", instant(12))
          expect(Option.getOrThrow(ended)).toMatchObject({ state: "exited", exitReason: "removed", nextRunAt: null, stepsRun: 1 })
          expect(yield* sequences.end(organization.id, each.id, reader.id, "removed", instant(12))).toStrictEqual(Option.none())
          yield* sequences.end(organization.id, once.id, reader.id, "removed", instant(12))
          expect(yield* enrollOne(once, reader.id, instant(13))).toStrictEqual([])
          const again = yield* enrollOne(each, reader.id, instant(13))
          expect(again).toHaveLength(1)
          expect(again[0]!.sandboxed).toBe(false)
          // An enrollment made with a test key is kept sandboxed.
          const trial = aSequence(organization.id, { reEntry: "each_time", createdAt: instant(4) })
          yield* sequences.insert(trial)
          const [sandboxed] = yield* sequences.enroll([{ id: EnrollmentId.make(randomUUID()), sequence: trial, subscriberId: reader.id, sandboxed: true }], instant(14))
          expect(sandboxed!.sandboxed).toBe(true)
          expect(Option.getOrThrow(yield* sequences.findEnrollment(organization.id, trial.id, reader.id)).sandboxed).toBe(true)
          expect(yield* sequences.findEnrollment(organization.id, each.id, reader.id)).toStrictEqual(Option.some(again[0]!))
          expect((yield* sequences.listEnrollments({ organizationId: organization.id, sequenceId: each.id, limit: 10 })).map((e) => e.state))
            .toStrictEqual(["exited", "active"])
          expect(yield* sequences.listEnrollments({ organizationId: organization.id, sequenceId: each.id, limit: 10, offset: 1 }))
            .toStrictEqual(again)
          expect(yield* sequences.countEnrollments(organization.id, each.id)).toBe(2)
          const counts = yield* sequences.enrollmentCounts(organization.id, [each.id, trial.id, SequenceId.make(randomUUID())])
          expect(counts.get(each.id)).toStrictEqual({ entered: 2, active: 1 })
          expect(counts.get(trial.id)).toStrictEqual({ entered: 1, active: 1 })
          expect(counts.size).toBe(2)
          expect((yield* sequences.enrollmentCounts(other.id, [each.id])).size).toBe(0)
          expect((yield* sequences.enrollmentCounts(organization.id, [])).size).toBe(0)

          // A deleted subscriber's enrollments go with them.
          yield* (yield* SubscriberRepository).delete(organization.id, reader.id)
          expect(yield* sequences.countEnrollments(organization.id, each.id)).toBe(0)
        }).pipe(deletingAfterwards([organization.id, other.id]))
      }))

    it.effect("hands out due enrollments of active sequences, records their steps as they move, and counts them per step", () =>
      Effect.gen(function*() {
        const sequences = yield* SequenceRepository
        const unitOfWork = yield* UnitOfWork
        const organization = yield* givenOrganization()
        yield* Effect.gen(function*() {
          const sequence = aSequence(organization.id)
          yield* sequences.insert(sequence)
          const [early, late, third] = [
            yield* givenSubscriber(organization.id),
            yield* givenSubscriber(organization.id),
            yield* givenSubscriber(organization.id)
          ]
          yield* enrollOne(sequence, late!.id, instant(20))
          yield* enrollOne(sequence, early!.id, instant(10))
          yield* enrollOne(sequence, third!.id, instant(30))

          expect(yield* unitOfWork.transaction(sequences.claimDue(instant(5), 10))).toStrictEqual([])
          const due = yield* unitOfWork.transaction(sequences.claimDue(instant(25), 10))
          expect(due.map((d) => d.enrollment.subscriberId)).toStrictEqual([early!.id, late!.id])
          expect(due[0]!.sequence).toStrictEqual(sequence)

          const message = yield* givenMessage(early!, { status: "clicked" })
          const moved: Enrollment = {
            ...due[0]!.enrollment,
            stepIndex: 1,
            stepName: "pause",
            waiting: true,
            nextRunAt: instant(100),
            lastMessageId: message.id,
            updatedAt: instant(25)
          }
          yield* unitOfWork.transaction(sequences.advance([{ enrollment: moved, runs: [{ step: "hello", outcome: "completed", messageId: message.id, at: instant(25) }] }]))
          expect(yield* sequences.findEnrollment(organization.id, sequence.id, early!.id)).toStrictEqual(Option.some({ ...moved, stepsRun: 1 }))
          expect(yield* sequences.runsOf(moved.id)).toStrictEqual([{ step: "hello", outcome: "completed", messageId: message.id, at: instant(25) }])
          // Waiting till 100, it is not due at 50; the others are.
          expect((yield* unitOfWork.transaction(sequences.claimDue(instant(50), 10))).map((d) => d.enrollment.subscriberId))
            .toStrictEqual([late!.id, third!.id])
          expect((yield* unitOfWork.transaction(sequences.claimDue(instant(50), 1))).map((d) => d.enrollment.subscriberId))
            .toStrictEqual([late!.id])

          // A paused sequence hands out nothing; its enrollments wait.
          yield* sequences.update({ ...sequence, status: "paused" })
          expect(yield* unitOfWork.transaction(sequences.claimDue(instant(500), 10))).toStrictEqual([])
          yield* sequences.update(sequence)

          yield* sequences.end(organization.id, sequence.id, late!.id, "removed", instant(60))
          expect(yield* sequences.figures(sequence.id)).toStrictEqual([
            { step: "hello", completed: 1, exited: 1, current: 1, emailsSent: 1, opened: 1, clicked: 1 },
            { step: "pause", completed: 0, exited: 0, current: 1, emailsSent: 0, opened: 0, clicked: 0 }
          ])

          // Several enrollments move in one go, each numbering its runs on from its own count.
          const atPause = Option.getOrThrow(yield* sequences.findEnrollment(organization.id, sequence.id, early!.id))
          const atHello = Option.getOrThrow(yield* sequences.findEnrollment(organization.id, sequence.id, third!.id))
          const finished: Enrollment = { ...atPause, state: "completed", waiting: false, nextRunAt: null, updatedAt: instant(70) }
          const left: Enrollment = { ...atHello, state: "exited", exitReason: "unsubscribed", nextRunAt: null, updatedAt: instant(70) }
          yield* unitOfWork.transaction(sequences.advance([
            { enrollment: finished, runs: [{ step: "pause", outcome: "completed", messageId: null, at: instant(70) }] },
            { enrollment: left, runs: [{ step: "hello", outcome: "exited", messageId: null, at: instant(70) }] }
          ]))
          expect(yield* sequences.findEnrollment(organization.id, sequence.id, early!.id)).toStrictEqual(Option.some({ ...finished, stepsRun: 2 }))
          expect(yield* sequences.findEnrollment(organization.id, sequence.id, third!.id)).toStrictEqual(Option.some({ ...left, stepsRun: 1 }))
          expect((yield* sequences.runsOf(finished.id)).map((r) => r.step)).toStrictEqual(["hello", "pause"])
          expect(yield* sequences.runsOf(left.id)).toStrictEqual([{ step: "hello", outcome: "exited", messageId: null, at: instant(70) }])
          expect(yield* unitOfWork.transaction(sequences.claimDue(instant(500), 10))).toStrictEqual([])
          yield* unitOfWork.transaction(sequences.advance([]))
        }).pipe(deletingAfterwards([organization.id]))
      }))

    it.effect("hands out a batch of several sequences and versions, each enrollment with its own sequence and steps", () =>
      Effect.gen(function*() {
        const sequences = yield* SequenceRepository
        const unitOfWork = yield* UnitOfWork
        const organization = yield* givenOrganization()
        yield* Effect.gen(function*() {
          const first = aSequence(organization.id)
          const other = aSequence(organization.id, {
            name: "Other",
            steps: stepsOf([{ name: "linger", wait: "P2D" }, { name: "done", end: true }])
          })
          yield* sequences.insert(first)
          yield* sequences.insert(other)
          const subscribers = [
            yield* givenSubscriber(organization.id),
            yield* givenSubscriber(organization.id),
            yield* givenSubscriber(organization.id),
            yield* givenSubscriber(organization.id)
          ]
          yield* enrollOne(first, subscribers[0]!.id, instant(10))
          yield* enrollOne(other, subscribers[1]!.id, instant(11))
          // The first sequence's second version: enrollments made now run its steps.
          const changed: Sequence = {
            ...first,
            version: 2,
            steps: stepsOf([{ name: "hello_again", send_email: { template_id: template } }, { name: "finish", end: true }]),
            updatedAt: instant(12)
          }
          yield* sequences.update(changed)
          yield* enrollOne(changed, subscribers[2]!.id, instant(12))
          yield* enrollOne(other, subscribers[3]!.id, instant(13))

          const due = yield* unitOfWork.transaction(sequences.claimDue(instant(20), 10))
          expect(due.map((d) => [d.enrollment.subscriberId, d.sequence.id, d.enrollment.version, d.steps.map((s) => s.name)]))
            .toStrictEqual([
              [subscribers[0]!.id, first.id, 1, ["hello", "pause", "bye"]],
              [subscribers[1]!.id, other.id, 1, ["linger", "done"]],
              [subscribers[2]!.id, first.id, 2, ["hello_again", "finish"]],
              [subscribers[3]!.id, other.id, 1, ["linger", "done"]]
            ])
          expect(due[0]!.sequence).toStrictEqual(changed)
          expect(due[2]!.sequence).toStrictEqual(changed)
          expect(due[1]!.sequence).toStrictEqual(other)
          expect(due[3]!.sequence).toStrictEqual(other)

          // A move without runs changes the enrollment alone.
          const moved: Enrollment = { ...due[1]!.enrollment, nextRunAt: instant(40), updatedAt: instant(20) }
          yield* unitOfWork.transaction(sequences.advance([{ enrollment: moved, runs: [] }]))
          expect(yield* sequences.findEnrollment(organization.id, other.id, subscribers[1]!.id)).toStrictEqual(Option.some(moved))
          expect(yield* sequences.runsOf(moved.id)).toStrictEqual([])
        }).pipe(deletingAfterwards([organization.id]))
      }))
  })
