import { type RecordedStepFigures, SequenceRepository, type StepRun } from "@roster/application"
import { type Enrollment, MessageId, type Sequence, type SequenceId } from "@roster/domain"
import { Effect, Layer, Option } from "effect"
import { deleteSequenceRecords, MemoryStore, type Tables } from "./memory-store.js"
import { pickDue } from "./memory-work-queue.js"
import { compareBy, compareText } from "./ordering.js"

const oldestFirst = compareBy((s: Sequence) => s.createdAt.toISOString(), "asc")
const enteredFirst = compareBy((e: Enrollment) => e.enteredAt.toISOString(), "asc")

const versionKey = (sequenceId: string, version: number) => `${sequenceId}/${version}`

const owned = (t: Tables, organizationId: string, id: string): Sequence | undefined => {
  const sequence = t.sequences.get(id)
  return sequence?.organizationId === organizationId ? sequence : undefined
}

const keepVersion = (t: Tables, sequence: Sequence) => {
  t.sequenceVersions.set(versionKey(sequence.id, sequence.version), sequence.steps)
}

const addRuns = (t: Tables, enrollment: Enrollment, runs: ReadonlyArray<StepRun>) => {
  if (runs.length === 0) return
  t.stepRuns.set(enrollment.id, [
    ...(t.stepRuns.get(enrollment.id) ?? []),
    ...runs.map((run) => ({ sequenceId: enrollment.sequenceId, ...run }))
  ])
}

/**
 * Sequences and their enrollments in memory. A claim is made inside a transaction, which holds
 * the store's turn until it ends: what the row lock does in PostgreSQL.
 */
export const MemorySequenceRepositoryLive = Layer.effect(
  SequenceRepository,
  Effect.map(MemoryStore, (store) =>
    SequenceRepository.of({
      insert: (sequence) =>
        store.write((t) => {
          t.sequences.set(sequence.id, sequence)
          keepVersion(t, sequence)
        }),

      update: (sequence) =>
        store.write((t) => {
          if (owned(t, sequence.organizationId, sequence.id) === undefined) return
          t.sequences.set(sequence.id, sequence)
          keepVersion(t, sequence)
        }),

      delete: (organizationId, id) =>
        store.write((t) => {
          if (owned(t, organizationId, id) === undefined) return false
          deleteSequenceRecords(t, id)
          return true
        }),

      findById: (organizationId, id) => store.read((t) => Option.fromNullable(owned(t, organizationId, id))),

      list: ({ after, limit, offset = 0, organizationId }) =>
        store.read((t) =>
          [...t.sequences.values()]
            .filter((s) => s.organizationId === organizationId)
            .filter((s) => after === undefined || oldestFirst(s, { id: after.id, createdAt: new Date(after.value) } as Sequence) > 0)
            .sort(oldestFirst)
            .slice(offset, offset + limit)
        ),

      count: (organizationId) => store.read((t) => [...t.sequences.values()].filter((s) => s.organizationId === organizationId).length),

      listening: (organizationIds) =>
        store.read((t) =>
          [...t.sequences.values()]
            .filter((s) => organizationIds.includes(s.organizationId) && s.status === "active" && s.entry.event !== "api")
            .sort(oldestFirst)
        ),

      enroll: (entries, at) =>
        store.write((t) => {
          const made: Array<Enrollment> = []
          for (const { id, sandboxed = false, sequence: given, subscriberId } of entries) {
            const sequence = t.sequences.get(given.id)
            if (sequence === undefined || sequence.status !== "active") continue
            if (t.subscribers.get(subscriberId)?.organizationId !== sequence.organizationId) continue
            const before = [...t.enrollments.values()].filter((e) => e.sequenceId === sequence.id && e.subscriberId === subscriberId)
            if (before.some((e) => sequence.reEntry === "once" || e.state === "active")) continue
            const enrollment: Enrollment = {
              id,
              organizationId: sequence.organizationId,
              sequenceId: sequence.id,
              version: sequence.version,
              subscriberId,
              state: "active",
              stepIndex: 0,
              stepName: sequence.steps[0]!.name,
              waiting: false,
              nextRunAt: at,
              lastMessageId: null,
              exitReason: null,
              sandboxed,
              stepsRun: 0,
              enteredAt: at,
              updatedAt: at
            }
            t.enrollments.set(id, enrollment)
            made.push(enrollment)
          }
          return made
        }),

      findEnrollment: (organizationId, sequenceId, subscriberId) =>
        store.read((t) => {
          const theirs = [...t.enrollments.values()]
            .filter((e) => e.organizationId === organizationId && e.sequenceId === sequenceId && e.subscriberId === subscriberId)
            .sort((a, b) => -enteredFirst(a, b))
          return Option.fromNullable(theirs.find((e) => e.state === "active") ?? theirs[0])
        }),

      listEnrollments: ({ after, limit, offset = 0, organizationId, sequenceId }) =>
        store.read((t) =>
          [...t.enrollments.values()]
            .filter((e) => e.organizationId === organizationId && e.sequenceId === sequenceId)
            .filter((e) => after === undefined || enteredFirst(e, { id: after.id, enteredAt: new Date(after.value) } as Enrollment) > 0)
            .sort(enteredFirst)
            .slice(offset, offset + limit)
        ),

      countEnrollments: (organizationId, sequenceId) =>
        store.read((t) => [...t.enrollments.values()].filter((e) => e.organizationId === organizationId && e.sequenceId === sequenceId).length),

      enrollmentCounts: (organizationId, sequenceIds) =>
        store.read((t) => {
          const counts = new Map<SequenceId, { entered: number; active: number }>()
          for (const e of t.enrollments.values()) {
            if (e.organizationId !== organizationId || !sequenceIds.includes(e.sequenceId)) continue
            const count = counts.get(e.sequenceId) ?? { entered: 0, active: 0 }
            counts.set(e.sequenceId, { entered: count.entered + 1, active: count.active + (e.state === "active" ? 1 : 0) })
          }
          return counts
        }),

      claimDue: (now, limit) =>
        store.read((t) =>
          pickDue(t.enrollments.values(), {
            claimable: (e) =>
              e.state === "active" && e.nextRunAt !== null && e.nextRunAt <= now && t.sequences.get(e.sequenceId)?.status === "active",
            order: (a, b) => a.nextRunAt!.getTime() - b.nextRunAt!.getTime() || compareText(a.id, b.id),
            limit
          }).map((enrollment) => ({
            enrollment,
            sequence: t.sequences.get(enrollment.sequenceId)!,
            steps: t.sequenceVersions.get(versionKey(enrollment.sequenceId, enrollment.version))!
          }))
        ),

      advance: (moves) =>
        store.write((t) => {
          for (const { enrollment, runs } of moves) {
            if (!t.enrollments.has(enrollment.id)) continue
            t.enrollments.set(enrollment.id, { ...enrollment, stepsRun: enrollment.stepsRun + runs.length })
            addRuns(t, enrollment, runs)
          }
        }),

      end: (organizationId, sequenceId, subscriberId, reason, at) =>
        store.write((t) => {
          const active = [...t.enrollments.values()].find((e) =>
            e.organizationId === organizationId && e.sequenceId === sequenceId && e.subscriberId === subscriberId && e.state === "active"
          )
          if (active === undefined) return Option.none()
          addRuns(t, active, [{ step: active.stepName, outcome: "exited", messageId: null, at }])
          const ended: Enrollment = {
            ...active,
            state: "exited",
            exitReason: reason,
            nextRunAt: null,
            waiting: false,
            stepsRun: active.stepsRun + 1,
            updatedAt: at
          }
          t.enrollments.set(active.id, ended)
          return Option.some(ended)
        }),

      runsOf: (enrollmentId) =>
        store.read((t) =>
          (t.stepRuns.get(enrollmentId) ?? []).map((run): StepRun => ({
            step: run.step,
            outcome: run.outcome,
            messageId: run.messageId === null ? null : MessageId.make(run.messageId),
            at: run.at
          }))
        ),

      figures: (sequenceId) =>
        store.read((t) => {
          const byStep = new Map<string, { -readonly [K in keyof RecordedStepFigures]: RecordedStepFigures[K] }>()
          const of = (step: string) => {
            let figures = byStep.get(step)
            if (figures === undefined) {
              figures = { step, completed: 0, exited: 0, current: 0, emailsSent: 0, opened: 0, clicked: 0 }
              byStep.set(step, figures)
            }
            return figures
          }
          for (const runs of t.stepRuns.values()) {
            for (const run of runs) {
              if (run.sequenceId !== sequenceId) continue
              const figures = of(run.step)
              if (run.outcome === "completed") figures.completed += 1
              else figures.exited += 1
              const message = run.messageId === null ? undefined : t.messages.get(run.messageId)?.message
              if (message === undefined) continue
              if (message.status !== "suppressed" && message.status !== "sandboxed") figures.emailsSent += 1
              if (message.status === "opened" || message.status === "clicked") figures.opened += 1
              if (message.status === "clicked") figures.clicked += 1
            }
          }
          for (const enrollment of t.enrollments.values()) {
            if (enrollment.sequenceId === sequenceId && enrollment.state === "active") of(enrollment.stepName).current += 1
          }
          return [...byStep.values()].sort((a, b) => compareText(a.step, b.step))
        })
    }))
)
