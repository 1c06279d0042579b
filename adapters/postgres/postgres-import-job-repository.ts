import * as SqlClient from "@effect/sql/SqlClient"
import { type DraftKey, ImportJobRepository } from "@roster/application"
import {
  type ImportCounts,
  type ImportFailure,
  type ImportId,
  type ImportJob,
  type ImportJobOptions,
  type ImportStatus,
  MAX_REPORTED_PROBLEMS,
  type OrganizationId,
  type Reason,
  reasonOfStored,
  type RowProblem
} from "@roster/domain"
import { Array, Effect, Layer, Option, Stream } from "effect"
import { instant, keyset } from "./keyset.js"
import { decodeCount, jsonb, type Row } from "./rows.js"
import { transactional } from "./transactions.js"
import { makeWorkQueue } from "./work-queue.js"

const COLUMNS = "id, organization_id, status, file_name, byte_size, options, counts, records_done, problems, " +
  "problem_count, ignored_columns, failure, created_at, started_at, finished_at, updated_at"

/** A problem or failure as kept: one kept before they carried reasons has its English words alone. */
type Stored<A extends { readonly reason: Reason }> = Omit<A, "reason"> & { readonly reason?: Reason }

const withReason = <A extends { readonly reason: Reason; readonly problem: string }>(stored: Stored<A>): A =>
  ({ ...stored, reason: reasonOfStored(stored) }) as unknown as A

/** An import as the database holds it: written by this adapter alone, so read without decoding. */
const jobOfRow = (row: Row): ImportJob => ({
  id: row.id as ImportId,
  organizationId: row.organization_id as OrganizationId,
  status: row.status as ImportStatus,
  fileName: row.file_name as string | null,
  byteSize: row.byte_size as number,
  options: row.options as ImportJobOptions,
  counts: row.counts as ImportCounts,
  recordsDone: row.records_done as number,
  problems: (row.problems as ReadonlyArray<Stored<RowProblem>>).map(withReason),
  problemCount: row.problem_count as number,
  ignoredColumns: row.ignored_columns as ReadonlyArray<string>,
  failure: row.failure === null ? null : withReason(row.failure as Stored<ImportFailure>),
  createdAt: row.created_at as Date,
  startedAt: row.started_at as Date | null,
  finishedAt: row.finished_at as Date | null,
  updatedAt: row.updated_at as Date
})

const firstJob = (rows: ReadonlyArray<Row>) => Option.map(Array.head(rows), jobOfRow)

/** A problem as it is kept: the row's address only when it has one. */
const storedProblem = (p: RowProblem) => ({ line: p.line, field: p.field, reason: p.reason, problem: p.problem, ...(p.email === undefined ? {} : { email: p.email }) })

/**
 * Imports sent over HTTP, and their files: a part of the file a row of `import_job_parts`, read
 * back one statement a part. A worker claims with `FOR UPDATE SKIP LOCKED`, so workers never
 * take the same import, and marks it with its lease token; its progress is written by the
 * statement that runs in the batch's transaction, so a batch and its record commit together, and
 * only while the token is still the import's (a worker that took it over replaced it).
 */
export const PostgresImportJobRepositoryLive = Layer.effect(
  ImportJobRepository,
  Effect.map(SqlClient.SqlClient, (sql) => {
    const columns = sql.literal(COLUMNS)
    const qualified = sql.literal(COLUMNS.split(", ").map((column) => `j.${column}`).join(", "))
    // An import is due while queued, or while running under a lease that ran out.
    const jobQueue = makeWorkQueue(sql, {
      table: "import_jobs",
      alias: "j",
      key: ["id"],
      due: "lease_until",
      token: "lease_token"
    })
    const running = sql`j.status = 'running'`

    /** The draft the key names: `j` is the import. */
    const isDraft = (key: DraftKey) =>
      sql.and([
        sql`j.id = ${key.id}`,
        sql`j.organization_id = ${key.organizationId}`,
        sql`j.draft`,
        key.heldBy === null ? sql`j.draft_of IS NULL` : sql`j.draft_of = ${key.heldBy}`
      ])

    const readPart = (id: ImportId, part: number) =>
      sql<{ readonly bytes: Uint8Array }>`SELECT bytes FROM import_job_parts WHERE job_id = ${id} AND part = ${part}`.pipe(
        Effect.map((rows) => Option.map(Array.head(rows), (row) => row.bytes)),
        Effect.orDie
      )

    return ImportJobRepository.of({
      insert: (job) =>
        sql`
          INSERT INTO import_jobs (${columns})
          VALUES (
            ${job.id}, ${job.organizationId}, ${job.status}, ${job.fileName}, ${job.byteSize}, ${jsonb(job.options)}::jsonb,
            ${jsonb(job.counts)}::jsonb, ${job.recordsDone}, ${jsonb(job.problems.map(storedProblem))}::jsonb,
            ${job.problemCount}, ${jsonb(job.ignoredColumns)}::jsonb, ${job.failure === null ? null : jsonb(job.failure)}::jsonb,
            ${job.createdAt}, ${job.startedAt}, ${job.finishedAt}, ${job.updatedAt}
          )`.pipe(Effect.asVoid, Effect.orDie),

      // The import's row is locked by the touch: a clean-up deciding meanwhile waits and sees it touched.
      appendPart: (id, part, bytes, at) =>
        sql`
          WITH touched AS (
            UPDATE import_jobs SET updated_at = ${at} WHERE id = ${id} AND status = 'receiving' RETURNING id
          )
          INSERT INTO import_job_parts (job_id, part, bytes) SELECT id, ${part}, ${bytes} FROM touched
          RETURNING job_id`.pipe(
          Effect.map((rows) => rows.length === 1),
          Effect.orDie
        ),

      markQueued: (id, byteSize, at) =>
        sql`
          UPDATE import_jobs SET status = 'queued', byte_size = ${byteSize}, updated_at = ${at}
          WHERE id = ${id} AND status = 'receiving'`.pipe(Effect.asVoid, Effect.orDie),

      markDraft: (id, heldBy, byteSize, at) =>
        sql`
          UPDATE import_jobs SET draft = true, draft_of = ${heldBy}, byte_size = ${byteSize}, updated_at = ${at}
          WHERE id = ${id} AND status = 'receiving'`.pipe(Effect.asVoid, Effect.orDie),

      findDraft: (key) =>
        sql`SELECT ${qualified} FROM import_jobs AS j WHERE ${isDraft(key)}`.pipe(Effect.map(firstJob), Effect.orDie),

      queueDraft: (key, options, at) =>
        sql`
          UPDATE import_jobs AS j
          SET status = 'queued', draft = false, draft_of = NULL, options = ${jsonb(options)}::jsonb, updated_at = ${at}
          WHERE ${isDraft(key)}
          RETURNING ${qualified}`.pipe(Effect.map(firstJob), Effect.orDie),

      discardDraft: (key) =>
        sql`DELETE FROM import_jobs AS j WHERE ${isDraft(key)} RETURNING j.id`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ),

      discard: (id) => sql`DELETE FROM import_jobs WHERE id = ${id}`.pipe(Effect.asVoid, Effect.orDie),

      discardAbandoned: (before) =>
        sql`DELETE FROM import_jobs WHERE status = 'receiving' AND updated_at < ${before} RETURNING id`.pipe(
          Effect.map((rows) => rows.length),
          Effect.orDie
        ),

      find: (organizationId, id) =>
        sql`SELECT ${columns} FROM import_jobs WHERE id = ${id} AND organization_id = ${organizationId}`.pipe(
          Effect.map(firstJob),
          Effect.orDie
        ),

      organizationOf: (id) =>
        sql<{ readonly organization_id: OrganizationId }>`SELECT organization_id FROM import_jobs WHERE id = ${id}`.pipe(
          Effect.map((rows) => Option.map(Array.head(rows), (row) => row.organization_id)),
          Effect.orDie
        ),

      list: (query) => {
        const page = keyset(sql, "created_at", "desc", query.after && { value: instant(query.after.value), id: query.after.id })
        return sql`
          SELECT ${columns} FROM import_jobs
          WHERE ${sql.and([sql`organization_id = ${query.organizationId}`, sql`status <> 'receiving'`, ...page.after])}
          ${page.orderBy}
          LIMIT ${query.limit} OFFSET ${query.offset ?? 0}`.pipe(
          Effect.map((rows) => rows.map(jobOfRow)),
          Effect.orDie
        )
      },

      count: (organizationId) =>
        sql`
          SELECT count(*)::integer AS count FROM import_jobs
          WHERE organization_id = ${organizationId} AND status <> 'receiving'`.pipe(Effect.flatMap(decodeCount), Effect.orDie),

      claim: (now, leaseUntil, leaseToken) =>
        jobQueue.claim({
          pick: {
            where: sql`j.status = 'queued' OR (j.status = 'running' AND j.lease_until <= ${now})`,
            orderBy: sql`j.created_at, j.id`,
            limit: 1
          },
          lease: {
            token: leaseToken,
            until: leaseUntil,
            set: sql`status = 'running', started_at = coalesce(j.started_at, ${now}), updated_at = ${now}`
          },
          returning: qualified
        }).pipe(Effect.map(firstJob), Effect.orDie),

      file: (id) =>
        Stream.unfoldEffect(0, (part) => Effect.map(readPart(id, part), Option.map((bytes) => [bytes, part + 1] as const))),

      saveProgress: (id, leaseToken, progress) => {
        const problems = jsonb(progress.problems.map(storedProblem))
        return jobQueue.renew({
          token: leaseToken,
          keys: [id],
          until: progress.leaseUntil,
          where: running,
          set: sql`
            records_done = ${progress.recordsDone},
            counts = ${jsonb(progress.counts)}::jsonb,
            problems = CASE
              WHEN jsonb_array_length(j.problems) >= ${MAX_REPORTED_PROBLEMS} THEN j.problems
              ELSE (
                SELECT coalesce(jsonb_agg(p.value ORDER BY p.n), '[]'::jsonb)
                FROM jsonb_array_elements(j.problems || ${problems}::jsonb) WITH ORDINALITY AS p(value, n)
                WHERE p.n <= ${MAX_REPORTED_PROBLEMS}
              )
            END,
            problem_count = j.problem_count + ${progress.problems.length},
            ignored_columns = ${jsonb(progress.ignoredColumns)}::jsonb,
            updated_at = ${progress.at}`,
          returning: sql`j.id`
        }).pipe(Effect.map((rows) => rows.length > 0), Effect.orDie)
      },

      // The lease ends with the import: its parts go in the same transaction.
      finish: (id, leaseToken, failure, at) =>
        transactional(sql)(Effect.gen(function*() {
          const finished = yield* jobQueue.release({
            token: leaseToken,
            keys: [id],
            at: null,
            where: running,
            set: sql`
              status = ${failure === null ? "completed" : "failed"},
              failure = ${failure === null ? null : jsonb(failure)}::jsonb,
              finished_at = ${at}, updated_at = ${at}`,
            returning: sql`j.id`
          })
          if (finished.length === 0) return false
          yield* sql`DELETE FROM import_job_parts WHERE job_id = ${id}`
          return true
        })).pipe(Effect.orDie),

      release: (id, leaseToken) =>
        jobQueue.release({ token: leaseToken, keys: [id], at: null, where: running, set: sql`status = 'queued'`, returning: sql`j.id` })
          .pipe(Effect.map((rows) => rows.length > 0), Effect.orDie),

      forgetAddresses: (organizationId, addresses) =>
        addresses.length === 0 ? Effect.succeed(0) : sql`
          WITH forgotten AS (SELECT DISTINCT lower(address) AS key FROM unnest(${addresses}::text[]) AS address)
          UPDATE import_jobs AS j SET problems = (
            SELECT jsonb_agg(CASE WHEN lower(p.value->>'email') IN (SELECT key FROM forgotten) THEN p.value - 'email' ELSE p.value END ORDER BY p.n)
            FROM jsonb_array_elements(j.problems) WITH ORDINALITY AS p(value, n)
          )
          WHERE j.organization_id = ${organizationId} AND j.problem_count > 0
            AND EXISTS (SELECT 1 FROM jsonb_array_elements(j.problems) AS p WHERE lower(p->>'email') IN (SELECT key FROM forgotten))
          RETURNING j.id`.pipe(Effect.map((rows) => rows.length), Effect.orDie),

      dropProblems: (before, limit) =>
        sql`
          UPDATE import_jobs SET problems = '[]'::jsonb
          WHERE id IN (
            SELECT id FROM import_jobs
            WHERE finished_at IS NOT NULL AND problems <> '[]'::jsonb AND finished_at < ${before}
            LIMIT ${limit}
          )
          RETURNING id`.pipe(Effect.map((rows) => rows.length), Effect.orDie)
    })
  })
)
