import type {
  Enrollment,
  EnrollmentId,
  ExitReason,
  MessageId,
  OrganizationId,
  Sequence,
  SequenceId,
  SequenceStep,
  SubscriberId
} from "@roster/domain"
import { Context, type Effect, type Option } from "effect"

/** An enrollment whose time has come, with its sequence and the steps of the version it runs. */
export interface DueEnrollment {
  readonly enrollment: Enrollment
  readonly sequence: Sequence
  readonly steps: ReadonlyArray<SequenceStep>
}

/** A step an enrollment ran to its end (`completed`) or ended in (`exited`). */
export interface StepRun {
  readonly step: string
  readonly outcome: "completed" | "exited"
  readonly messageId: MessageId | null
  readonly at: Date
}

/** An enrollment as it moved on, with the steps it ran on the way. */
export interface EnrollmentMove {
  readonly enrollment: Enrollment
  readonly runs: ReadonlyArray<StepRun>
}

/** A subscriber to enter into a sequence, under a new enrollment id. */
export interface NewEnrollment {
  readonly id: EnrollmentId
  readonly sequence: Sequence
  readonly subscriberId: SubscriberId
  /** Its emails are recorded, never delivered (an enrollment made with a test key). */
  readonly sandboxed?: boolean
}

/** One step's figures as recorded: its runs by outcome, its emails by how far they got, who is at it now. */
export interface RecordedStepFigures {
  readonly step: string
  readonly completed: number
  readonly exited: number
  readonly current: number
  readonly emailsSent: number
  readonly opened: number
  readonly clicked: number
}

/** A sequence's enrollments: all it ever made, and those active now. */
export interface EnrollmentCounts {
  readonly entered: number
  readonly active: number
}

/**
 * Sequences with every version of their steps, the enrollments of subscribers in them, and the
 * steps each enrollment ran.
 */
export class SequenceRepository extends Context.Tag("roster/SequenceRepository")<SequenceRepository, {
  /** Stores a new sequence and its version's steps. */
  readonly insert: (sequence: Sequence) => Effect.Effect<void>
  /** Stores the sequence as changed; a version not stored before gets its steps kept too. */
  readonly update: (sequence: Sequence) => Effect.Effect<void>
  /** Deletes the sequence with its enrollments. */
  readonly delete: (organizationId: OrganizationId, id: SequenceId) => Effect.Effect<boolean>
  readonly findById: (organizationId: OrganizationId, id: SequenceId) => Effect.Effect<Option.Option<Sequence>>
  /** Oldest first: `limit` after `after`, or past `offset`. */
  readonly list: (query: {
    readonly organizationId: OrganizationId
    readonly limit: number
    readonly after?: { readonly value: string | number; readonly id: string } | undefined
    readonly offset?: number | undefined
  }) => Effect.Effect<ReadonlyArray<Sequence>>
  readonly count: (organizationId: OrganizationId) => Effect.Effect<number>
  /** The active sequences of these organizations that an event enters subscribers into (all but `api`). */
  readonly listening: (organizationIds: ReadonlyArray<OrganizationId>) => Effect.Effect<ReadonlyArray<Sequence>>
  /**
   * Enrolls each subscriber at the first step of the sequence's version, due at `at`, where the
   * sequence is active, the subscriber is one of its organization, and its re-entry allows:
   * `once`, never enrolled before; `each_time`, not enrolled now. The enrollments made.
   */
  readonly enroll: (entries: ReadonlyArray<NewEnrollment>, at: Date) => Effect.Effect<ReadonlyArray<Enrollment>>
  /** The subscriber's active enrollment in the sequence, or else their latest. */
  readonly findEnrollment: (
    organizationId: OrganizationId,
    sequenceId: SequenceId,
    subscriberId: SubscriberId
  ) => Effect.Effect<Option.Option<Enrollment>>
  /** The sequence's enrollments, oldest first: `limit` after `after`, or past `offset`. */
  readonly listEnrollments: (query: {
    readonly organizationId: OrganizationId
    readonly sequenceId: SequenceId
    readonly limit: number
    readonly after?: { readonly value: string | number; readonly id: string } | undefined
    readonly offset?: number | undefined
  }) => Effect.Effect<ReadonlyArray<Enrollment>>
  readonly countEnrollments: (organizationId: OrganizationId, sequenceId: SequenceId) => Effect.Effect<number>
  /** How many enrollments each of these sequences of the organization has, and how many are active; those with none are left out. */
  readonly enrollmentCounts: (
    organizationId: OrganizationId,
    sequenceIds: ReadonlyArray<SequenceId>
  ) => Effect.Effect<ReadonlyMap<SequenceId, EnrollmentCounts>>
  /**
   * Up to `limit` active enrollments due at `now` of active sequences, soonest due first, each
   * locked until the surrounding transaction ends; rows another transaction holds are passed
   * over. Call it inside a transaction, and record what came of each with {@link advance} in it.
   */
  readonly claimDue: (now: Date, limit: number) => Effect.Effect<ReadonlyArray<DueEnrollment>>
  /** Stores each enrollment as it moved on, with the steps it ran meanwhile (numbered on from its `stepsRun`). */
  readonly advance: (moves: ReadonlyArray<EnrollmentMove>) => Effect.Effect<void>
  /** Ends the subscriber's active enrollment in the sequence at its step, for `reason`; the enrollment as ended. */
  readonly end: (
    organizationId: OrganizationId,
    sequenceId: SequenceId,
    subscriberId: SubscriberId,
    reason: ExitReason,
    at: Date
  ) => Effect.Effect<Option.Option<Enrollment>>
  /** The steps an enrollment ran, in order. */
  readonly runsOf: (enrollmentId: EnrollmentId) => Effect.Effect<ReadonlyArray<StepRun>>
  /** Figures of each step name the sequence's enrollments reached, in any version. */
  readonly figures: (sequenceId: SequenceId) => Effect.Effect<ReadonlyArray<RecordedStepFigures>>
}>() {}
