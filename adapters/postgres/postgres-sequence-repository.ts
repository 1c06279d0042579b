import * as SqlClient from "@effect/sql/SqlClient"
import { type RecordedStepFigures, SequenceRepository, type StepRun } from "@roster/application"
import {
  decodeEntry,
  decodeSteps,
  type Enrollment,
  type EnrollmentId,
  entryToJson,
  type ExitReason,
  MessageId,
  OrganizationId,
  type ReEntry,
  type Sequence,
  type SequenceStep,
  SequenceId,
  type SequenceStatus,
  stepToJson,
  SubscriberId,
  TagId
} from "@roster/domain"
import { Effect, Either, Layer, Option } from "effect"
import { jsonb, type Row } from "./rows.js"
import { transactional } from "./transactions.js"
import { makeWorkQueue } from "./work-queue.js"

const json = (value: unknown): unknown => typeof value === "string" ? JSON.parse(value) : value

const sequenceColumns = (alias: string, prefix: string) =>
  ["id", "organization_id", "name", "status", "version", "entry", "steps", "goal_tag_id", "re_entry", "time_zone", "created_at", "updated_at"]
    .map((column) => `${alias}.${column} AS ${prefix}${column}`).join(", ")

/**
 * A claimed batch's sequence columns and version steps, on the first row of each sequence and of
 * each version only (in the batch's order): the rest would be decoded only to be thrown away.
 */
const firstOnly = (() => {
  const order = "ORDER BY e.next_run_at, e.id"
  const firstOfSequence = `row_number() OVER (PARTITION BY e.sequence_id ${order}) = 1`
  const firstOfVersion = `row_number() OVER (PARTITION BY e.sequence_id, e.version ${order}) = 1`
  return [
    ...sequenceColumns("s", "s_").split(", ").map((column) => {
      const [expression, name] = column.split(" AS ")
      return `CASE WHEN ${firstOfSequence} THEN ${expression} END AS ${name}`
    }),
    `CASE WHEN ${firstOfVersion} THEN v.steps END AS v_steps`
  ].join(", ")
})()

const enrollmentColumns = (alias: string, prefix: string) =>
  [
    "id",
    "organization_id",
    "sequence_id",
    "version",
    "subscriber_id",
    "state",
    "step_index",
    "step_name",
    "waiting",
    "next_run_at",
    "last_message_id",
    "exit_reason",
    "steps_run",
    "sandboxed",
    "entered_at",
    "updated_at"
  ].map((column) => `${alias}.${column} AS ${prefix}${column}`).join(", ")

const date = (value: unknown): Date => value instanceof Date ? value : new Date(String(value))

const sequenceOf = (row: Row, prefix = ""): Sequence => ({
  id: SequenceId.make(String(row[`${prefix}id`])),
  organizationId: OrganizationId.make(String(row[`${prefix}organization_id`])),
  name: String(row[`${prefix}name`]),
  status: String(row[`${prefix}status`]) as SequenceStatus,
  version: Number(row[`${prefix}version`]),
  entry: Either.getOrThrow(decodeEntry(json(row[`${prefix}entry`]))),
  steps: Either.getOrThrow(decodeSteps(json(row[`${prefix}steps`]))),
  goalTagId: row[`${prefix}goal_tag_id`] == null ? null : TagId.make(String(row[`${prefix}goal_tag_id`])),
  reEntry: String(row[`${prefix}re_entry`]) as ReEntry,
  timeZone: String(row[`${prefix}time_zone`]),
  createdAt: date(row[`${prefix}created_at`]),
  updatedAt: date(row[`${prefix}updated_at`])
})

/** The names of an enrollment's columns under a prefix, made once: a claim reads them for every row. */
const enrollmentKeys = (prefix: string) => ({
  id: `${prefix}id`,
  organizationId: `${prefix}organization_id`,
  sequenceId: `${prefix}sequence_id`,
  version: `${prefix}version`,
  subscriberId: `${prefix}subscriber_id`,
  state: `${prefix}state`,
  stepIndex: `${prefix}step_index`,
  stepName: `${prefix}step_name`,
  waiting: `${prefix}waiting`,
  nextRunAt: `${prefix}next_run_at`,
  lastMessageId: `${prefix}last_message_id`,
  exitReason: `${prefix}exit_reason`,
  sandboxed: `${prefix}sandboxed`,
  stepsRun: `${prefix}steps_run`,
  enteredAt: `${prefix}entered_at`,
  updatedAt: `${prefix}updated_at`
})

const keysByPrefix = new Map([["", enrollmentKeys("")], ["e_", enrollmentKeys("e_")]])

/**
 * An enrollment row as a domain value, field by field: the database holds only ids the domain
 * wrote (uuid columns), so they are not checked again, as in trusted-rows.ts.
 */
const enrollmentOf = (row: Row, prefix = ""): Enrollment => {
  let k = keysByPrefix.get(prefix)
  if (k === undefined) keysByPrefix.set(prefix, k = enrollmentKeys(prefix))
  return {
    id: String(row[k.id]) as EnrollmentId,
    organizationId: String(row[k.organizationId]) as OrganizationId,
    sequenceId: String(row[k.sequenceId]) as SequenceId,
    version: Number(row[k.version]),
    subscriberId: String(row[k.subscriberId]) as SubscriberId,
    state: String(row[k.state]) as Enrollment["state"],
    stepIndex: Number(row[k.stepIndex]),
    stepName: String(row[k.stepName]),
    waiting: Boolean(row[k.waiting]),
    nextRunAt: row[k.nextRunAt] == null ? null : date(row[k.nextRunAt]),
    lastMessageId: row[k.lastMessageId] == null ? null : String(row[k.lastMessageId]) as MessageId,
    exitReason: row[k.exitReason] == null ? null : String(row[k.exitReason]) as ExitReason,
    sandboxed: Boolean(row[k.sandboxed]),
    stepsRun: Number(row[k.stepsRun]),
    enteredAt: date(row[k.enteredAt]),
    updatedAt: date(row[k.updatedAt])
  }
}

const stepsJson = (sequence: Sequence) => jsonb(sequence.steps.map(stepToJson))

/**
 * Sequences and their enrollments. Due enrollments are taken under a row lock that lasts as long
 * as the caller's transaction, in which the steps they run are recorded.
 */
export const PostgresSequenceRepositoryLive = Layer.effect(
  SequenceRepository,
  Effect.map(SqlClient.SqlClient, (sql) => {
    const all = sql.literal(sequenceColumns("sequences", ""))
    const enrollments = sql.literal(enrollmentColumns("sequence_enrollments", ""))
    const transaction = transactional(sql)
    const queue = makeWorkQueue(sql, { table: "sequence_enrollments", alias: "e", key: ["id"], lock: "NO KEY UPDATE" })

    const keepVersion = (sequence: Sequence) =>
      sql`
        INSERT INTO sequence_versions (sequence_id, version, steps, created_at)
        VALUES (${sequence.id}, ${sequence.version}, ${stepsJson(sequence)}::jsonb, ${sequence.updatedAt})
        ON CONFLICT (sequence_id, version) DO UPDATE SET steps = EXCLUDED.steps`

    return SequenceRepository.of({
      insert: (sequence) =>
        sql`
          INSERT INTO sequences (id, organization_id, name, status, version, entry, entry_event, steps, goal_tag_id, re_entry,
                                 time_zone, created_at, updated_at)
          VALUES (${sequence.id}, ${sequence.organizationId}, ${sequence.name}, ${sequence.status}, ${sequence.version},
                  ${jsonb(entryToJson(sequence.entry))}::jsonb, ${sequence.entry.event}, ${stepsJson(sequence)}::jsonb,
                  ${sequence.goalTagId}, ${sequence.reEntry}, ${sequence.timeZone}, ${sequence.createdAt}, ${sequence.updatedAt})`.pipe(
          Effect.zipRight(keepVersion(sequence)),
          transaction,
          Effect.asVoid,
          Effect.orDie
        ),

      update: (sequence) =>
        sql`
          UPDATE sequences SET name = ${sequence.name}, status = ${sequence.status}, version = ${sequence.version},
                 entry = ${jsonb(entryToJson(sequence.entry))}::jsonb, entry_event = ${sequence.entry.event},
                 steps = ${stepsJson(sequence)}::jsonb, goal_tag_id = ${sequence.goalTagId}, re_entry = ${sequence.reEntry},
                 time_zone = ${sequence.timeZone}, updated_at = ${sequence.updatedAt}
          WHERE id = ${sequence.id} AND organization_id = ${sequence.organizationId} RETURNING id`.pipe(
          Effect.flatMap((rows) => rows.length === 0 ? Effect.void : keepVersion(sequence)),
          transaction,
          Effect.asVoid,
          Effect.orDie
        ),

      delete: (organizationId, id) =>
        sql`DELETE FROM sequences WHERE id = ${id} AND organization_id = ${organizationId} RETURNING id`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ),

      findById: (organizationId, id) =>
        sql`SELECT ${all} FROM sequences WHERE id = ${id} AND organization_id = ${organizationId}`.pipe(
          Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (row) => sequenceOf(row))),
          Effect.orDie
        ),

      list: ({ after, limit, offset, organizationId }) =>
        sql`
          SELECT ${all} FROM sequences
          WHERE organization_id = ${organizationId}
            ${after === undefined ? sql`` : sql`AND (created_at, id) > (${new Date(after.value)}, ${after.id})`}
          ORDER BY created_at, id
          LIMIT ${limit} ${offset === undefined ? sql`` : sql`OFFSET ${offset}`}`.pipe(
          Effect.map((rows) => rows.map((row) => sequenceOf(row))),
          Effect.orDie
        ),

      count: (organizationId) =>
        sql`SELECT count(*)::integer AS count FROM sequences WHERE organization_id = ${organizationId}`.pipe(
          Effect.map((rows) => Number(rows[0]?.count ?? 0)),
          Effect.orDie
        ),

      listening: (organizationIds) =>
        organizationIds.length === 0 ? Effect.succeed([]) : sql`
          SELECT ${all} FROM sequences
          WHERE organization_id = ANY(${organizationIds}::uuid[]) AND status = 'active' AND entry_event <> 'api'
          ORDER BY created_at, id`.pipe(Effect.map((rows) => rows.map((row) => sequenceOf(row))), Effect.orDie),

      enroll: (entries, at) =>
        entries.length === 0 ? Effect.succeed([]) : sql`
          INSERT INTO sequence_enrollments (id, organization_id, sequence_id, version, subscriber_id, state, step_index, step_name,
                                            waiting, next_run_at, sandboxed, entered_at, updated_at)
          SELECT e.id, s.organization_id, s.id, s.version, e.subscriber_id, 'active', 0, s.steps -> 0 ->> 'name', false, ${at},
                 e.sandboxed, ${at}, ${at}
          FROM unnest(${entries.map((e) => e.id)}::uuid[], ${entries.map((e) => e.sequence.id)}::uuid[],
                      ${entries.map((e) => e.subscriberId)}::uuid[], ${entries.map((e) => e.sandboxed === true)}::boolean[])
               WITH ORDINALITY AS e(id, sequence_id, subscriber_id, sandboxed, n)
          JOIN sequences s ON s.id = e.sequence_id AND s.status = 'active'
          WHERE EXISTS (SELECT 1 FROM subscribers x WHERE x.id = e.subscriber_id AND x.organization_id = s.organization_id)
            AND NOT EXISTS (
              SELECT 1 FROM sequence_enrollments p
              WHERE p.sequence_id = e.sequence_id AND p.subscriber_id = e.subscriber_id AND (s.re_entry = 'once' OR p.state = 'active')
            )
          ORDER BY e.n
          ON CONFLICT DO NOTHING
          RETURNING ${sql.literal(enrollmentColumns("sequence_enrollments", ""))}`.pipe(
          Effect.map((rows) => rows.map((row) => enrollmentOf(row))),
          Effect.orDie
        ),

      findEnrollment: (organizationId, sequenceId, subscriberId) =>
        sql`
          SELECT ${enrollments} FROM sequence_enrollments
          WHERE organization_id = ${organizationId} AND sequence_id = ${sequenceId} AND subscriber_id = ${subscriberId}
          ORDER BY (state = 'active') DESC, entered_at DESC, id DESC
          LIMIT 1`.pipe(Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (row) => enrollmentOf(row))), Effect.orDie),

      listEnrollments: ({ after, limit, offset, organizationId, sequenceId }) =>
        sql`
          SELECT ${enrollments} FROM sequence_enrollments
          WHERE organization_id = ${organizationId} AND sequence_id = ${sequenceId}
            ${after === undefined ? sql`` : sql`AND (entered_at, id) > (${new Date(after.value)}, ${after.id})`}
          ORDER BY entered_at, id
          LIMIT ${limit} ${offset === undefined ? sql`` : sql`OFFSET ${offset}`}`.pipe(
          Effect.map((rows) => rows.map((row) => enrollmentOf(row))),
          Effect.orDie
        ),

      countEnrollments: (organizationId, sequenceId) =>
        sql`
          SELECT count(*)::integer AS count FROM sequence_enrollments
          WHERE organization_id = ${organizationId} AND sequence_id = ${sequenceId}`.pipe(
          Effect.map((rows) => Number(rows[0]?.count ?? 0)),
          Effect.orDie
        ),

      enrollmentCounts: (organizationId, sequenceIds) =>
        sequenceIds.length === 0
          ? Effect.succeed(new Map())
          : sql<{ readonly sequence_id: string; readonly entered: number; readonly active: number }>`
            SELECT sequence_id, count(*)::integer AS entered, (count(*) FILTER (WHERE state = 'active'))::integer AS active
            FROM sequence_enrollments
            WHERE organization_id = ${organizationId} AND sequence_id = ANY(${sequenceIds}::uuid[])
            GROUP BY sequence_id`.pipe(
            Effect.map((rows) =>
              new Map(rows.map((row) => [SequenceId.make(row.sequence_id), { entered: Number(row.entered), active: Number(row.active) }]))
            ),
            Effect.orDie
          ),

      claimDue: (now, limit) =>
        sql`
          WITH due AS (${
          queue.pick({
            join: sql`JOIN sequences s ON s.id = e.sequence_id`,
            where: sql`e.state = 'active' AND e.next_run_at <= ${now} AND s.status = 'active'`,
            orderBy: sql`e.next_run_at, e.id`,
            limit
          })
        })
          SELECT ${sql.literal(enrollmentColumns("e", "e_"))}, ${sql.literal(firstOnly)}
          FROM due
          JOIN sequence_enrollments e ON e.id = due.id
          JOIN sequences s ON s.id = e.sequence_id
          JOIN sequence_versions v ON v.sequence_id = e.sequence_id AND v.version = e.version
          ORDER BY e.next_run_at, e.id`.pipe(
          Effect.map((rows) => {
            // A batch is mostly enrollments of a few sequences: each sequence and version decoded once.
            const sequences = new Map<string, Sequence>()
            const versions = new Map<string, ReadonlyArray<SequenceStep>>()
            return rows.map((row) => {
              const enrollment = enrollmentOf(row, "e_")
              const versionKey = `${enrollment.sequenceId}:${enrollment.version}`
              let sequence = sequences.get(enrollment.sequenceId)
              if (sequence === undefined) sequences.set(enrollment.sequenceId, sequence = sequenceOf(row, "s_"))
              let steps = versions.get(versionKey)
              if (steps === undefined) versions.set(versionKey, steps = Either.getOrThrow(decodeSteps(json(row.v_steps))))
              return { enrollment, sequence, steps }
            })
          }),
          Effect.orDie
        ),

      // One statement for the whole batch: the enrollments' new places, and every step they ran.
      advance: (moves) => {
        if (moves.length === 0) return Effect.void
        const runs = moves.flatMap(({ enrollment, runs }) =>
          runs.map((run, i) => ({ run, enrollment, ordinal: enrollment.stepsRun + i }))
        )
        const e = moves.map((move) => move.enrollment)
        return sql`
          WITH moved AS (
            UPDATE sequence_enrollments AS e
            SET state = m.state, step_index = m.step_index, step_name = m.step_name, waiting = m.waiting,
                next_run_at = m.next_run_at, last_message_id = m.last_message_id, exit_reason = m.exit_reason,
                steps_run = m.steps_run, updated_at = m.updated_at
            FROM unnest(
              ${e.map((x) => x.id)}::uuid[], ${e.map((x) => x.state)}::text[], ${e.map((x) => x.stepIndex)}::int[],
              ${e.map((x) => x.stepName)}::text[], ${e.map((x) => x.waiting)}::boolean[],
              ${e.map((x) => x.nextRunAt)}::timestamptz[], ${e.map((x) => x.lastMessageId)}::uuid[],
              ${e.map((x) => x.exitReason)}::text[], ${moves.map((x) => x.enrollment.stepsRun + x.runs.length)}::int[],
              ${e.map((x) => x.updatedAt)}::timestamptz[]
            ) AS m(id, state, step_index, step_name, waiting, next_run_at, last_message_id, exit_reason, steps_run, updated_at)
            WHERE e.id = m.id
          )
          INSERT INTO sequence_step_runs (enrollment_id, ordinal, sequence_id, step_name, outcome, message_id, at)
          SELECT * FROM unnest(
            ${runs.map((r) => r.enrollment.id)}::uuid[], ${runs.map((r) => r.ordinal)}::int[],
            ${runs.map((r) => r.enrollment.sequenceId)}::uuid[], ${runs.map((r) => r.run.step)}::text[],
            ${runs.map((r) => r.run.outcome)}::text[], ${runs.map((r) => r.run.messageId)}::uuid[],
            ${runs.map((r) => r.run.at)}::timestamptz[]
          )`.pipe(Effect.asVoid, Effect.orDie)
      },

      end: (organizationId, sequenceId, subscriberId, reason, at) =>
        sql`
          WITH ended AS (
            UPDATE sequence_enrollments
            SET state = 'exited', exit_reason = ${reason}, next_run_at = NULL, waiting = false, steps_run = steps_run + 1,
                updated_at = ${at}
            WHERE organization_id = ${organizationId} AND sequence_id = ${sequenceId} AND subscriber_id = ${subscriberId}
              AND state = 'active'
            RETURNING *
          ), recorded AS (
            INSERT INTO sequence_step_runs (enrollment_id, ordinal, sequence_id, step_name, outcome, message_id, at)
            SELECT id, steps_run - 1, sequence_id, step_name, 'exited', NULL, ${at} FROM ended
          )
          SELECT ${sql.literal(enrollmentColumns("ended", ""))} FROM ended`.pipe(
          Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (row) => enrollmentOf(row))),
          Effect.orDie
        ),

      runsOf: (enrollmentId) =>
        sql`
          SELECT step_name, outcome, message_id, at FROM sequence_step_runs
          WHERE enrollment_id = ${enrollmentId} ORDER BY ordinal`.pipe(
          Effect.map((rows) =>
            rows.map((row): StepRun => ({
              step: String(row.step_name),
              outcome: String(row.outcome) as StepRun["outcome"],
              messageId: row.message_id == null ? null : MessageId.make(String(row.message_id)),
              at: date(row.at)
            }))
          ),
          Effect.orDie
        ),

      figures: (sequenceId) =>
        sql`
          WITH runs AS (
            SELECT r.step_name,
                   count(*) FILTER (WHERE r.outcome = 'completed')::integer AS completed,
                   count(*) FILTER (WHERE r.outcome = 'exited')::integer AS exited,
                   count(m.id) FILTER (WHERE m.status NOT IN ('suppressed', 'sandboxed'))::integer AS emails_sent,
                   count(m.id) FILTER (WHERE m.status IN ('opened', 'clicked'))::integer AS opened,
                   count(m.id) FILTER (WHERE m.status = 'clicked')::integer AS clicked
            FROM sequence_step_runs r LEFT JOIN messages m ON m.id = r.message_id
            WHERE r.sequence_id = ${sequenceId}
            GROUP BY r.step_name
          ), at_step AS (
            SELECT step_name, count(*)::integer AS current FROM sequence_enrollments
            WHERE sequence_id = ${sequenceId} AND state = 'active'
            GROUP BY step_name
          )
          SELECT coalesce(runs.step_name, at_step.step_name) AS step_name, coalesce(completed, 0) AS completed,
                 coalesce(exited, 0) AS exited, coalesce(current, 0) AS current, coalesce(emails_sent, 0) AS emails_sent,
                 coalesce(opened, 0) AS opened, coalesce(clicked, 0) AS clicked
          FROM runs FULL JOIN at_step ON at_step.step_name = runs.step_name
          ORDER BY 1`.pipe(
          Effect.map((rows) =>
            rows.map((row): RecordedStepFigures => ({
              step: String(row.step_name),
              completed: Number(row.completed),
              exited: Number(row.exited),
              current: Number(row.current),
              emailsSent: Number(row.emails_sent),
              opened: Number(row.opened),
              clicked: Number(row.clicked)
            }))
          ),
          Effect.orDie
        )
    })
  })
)
