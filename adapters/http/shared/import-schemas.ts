import { HttpApiSchema } from "@effect/platform"
import { IMPORT_COLUMNS, IMPORT_PROBLEMS_RETENTION_MS, ImportId, type ImportJob, MAX_REPORTED_PROBLEMS } from "@roster/domain"
import { Schema } from "effect"
import { Count, IdInput, oneOf, strictInput, Timestamp, Uuid } from "./wire-fields.js"

/** Imports of subscribers from a CSV file, sent over HTTP, as every form shows and takes them. */

/** The most characters a file's name may have. */
export const MAX_FILE_NAME_LENGTH = 255

/** How a flag reads in a query string or a form field. */
const FlagInput = (description: string) =>
  Schema.transform(oneOf(Schema.Literal("true", "false"), description), Schema.Boolean, {
    strict: true,
    decode: (text) => text === "true",
    encode: (flag) => (flag ? "true" : "false")
  })

const resubscribeDescription = "`true` brings back subscribers who unsubscribed, bounced or complained and whom the file " +
  "names (default `false`: they keep their status)"

const encodingDescription = "the file's character encoding as WHATWG names them (`utf-8` unless told; `windows-1252`, " +
  "`iso-8859-15`, `utf-16le`, ...); a byte-order mark wins over it"

const fileNameDescription = `the file's name, as the import shows it (at most ${MAX_FILE_NAME_LENGTH} characters); ` +
  "else the name in `Content-Disposition`, if any"

/** The query of an upload: its options (the fields of a multipart form say them too). */
export const ImportUploadParams = Schema.Struct({
  resubscribe: Schema.optionalWith(FlagInput(resubscribeDescription), { exact: true }),
  encoding: Schema.optionalWith(Schema.String.annotations({ description: encodingDescription }), { exact: true }),
  file_name: Schema.optionalWith(Schema.String.annotations({ description: fileNameDescription }), { exact: true })
}).annotations(strictInput)

export type ImportUploadQuery = typeof ImportUploadParams.Type

const csvDescription = `The CSV file, as it is. Its first line names the columns: \`email\` (required), ${
  IMPORT_COLUMNS.filter((column) => column !== "email").map((column) => `\`${column}\``).join(", ")
}; other columns are passed over and named in \`ignored_columns\`. Options go in the query.`

/**
 * The body of an upload, for the API's description: the CSV file as the body, or as the `file`
 * field of a form. The endpoint streams it as it comes; nothing decodes it beforehand.
 */
export const ImportUploadBody = Schema.Union(
  HttpApiSchema.Text({ contentType: "text/csv" }).annotations({ description: csvDescription }),
  HttpApiSchema.Multipart(
    Schema.Struct({
      resubscribe: Schema.optional(Schema.Literal("true", "false").annotations({ description: resubscribeDescription })),
      encoding: Schema.optional(Schema.String.annotations({ description: encodingDescription })),
      // Described, never decoded: the endpoint streams the file.
      file: Schema.Unknown.annotations({
        jsonSchema: { type: "string", format: "binary", description: "the CSV file (a file part, with a file name), after the other fields" }
      })
    }).annotations({ identifier: "ImportUploadForm" })
  )
)

const ImportStatusOutput = oneOf(
  Schema.Literal("receiving", "queued", "running", "completed", "failed"),
  "`queued` until a worker takes it, `running`, then `completed` (every row read; some may be problems) or " +
    "`failed` (the file could not be read to its end: the rows before stay imported, `failure` says why)"
)

export const ImportCountsOutput = Schema.Struct({
  rows: Count("rows read after the header, blank ones left out"),
  created: Count("new subscribers"),
  updated: Count("subscribers who were there and changed (names, status, metadata, new tags)"),
  unchanged: Count("subscribers who were there, as the row says"),
  failed: Count("rows reported as problems: nothing of theirs was written"),
  kept_status: Count("subscribers who unsubscribed, bounced or complained and kept that status (no `resubscribe`)")
}).annotations({ identifier: "ImportCounts", description: "what the import did so far" })

export const ImportProblem = Schema.Struct({
  line: Count("the row's line in the file (the header is line 1)"),
  field: Schema.String.annotations({
    description: "the column to blame (`email`, `status`, `tags`, `metadata.KEY`, ...), or `row` for the row as a whole"
  }),
  problem: Schema.String.annotations({ description: "what is wrong with it" }),
  email: Schema.NullOr(Schema.String).annotations({
    description: "the row's address, when it has a usable one (null too once the subscriber it names was erased)"
  })
}).annotations({ identifier: "ImportProblemRow" })

const importFields = {
  id: Uuid,
  status: ImportStatusOutput,
  file_name: Schema.NullOr(Schema.String).annotations({ description: "the file's name, as the upload gave it" }),
  byte_size: Count("the file's size in bytes"),
  options: Schema.Struct({
    resubscribe: Schema.Boolean,
    encoding: Schema.String,
    create_tags: Schema.Boolean.annotations({
      description: "tag names no tag has become tags (the uploader holds `tags:write`); otherwise such rows are problems"
    })
  }),
  counts: ImportCountsOutput,
  records_done: Count("records of the file the import is done with, the header included"),
  problem_count: Count("every row reported as a problem, listed or not"),
  ignored_columns: Schema.Array(Schema.String).annotations({ description: "columns of the header the import passes over" }),
  failure: Schema.NullOr(Schema.Struct({
    line: Schema.NullOr(Count("the line to blame")),
    problem: Schema.String
  })).annotations({ description: "why a `failed` import stopped; null otherwise" }),
  created_at: Timestamp,
  started_at: Schema.NullOr(Timestamp).annotations({ description: "when a worker first took it" }),
  finished_at: Schema.NullOr(Timestamp),
  updated_at: Timestamp
}

/** An import with its problems. */
export const SubscriberImport = Schema.Struct({
  ...importFields,
  problems: Schema.Array(ImportProblem).annotations({
    description: `the first ${MAX_REPORTED_PROBLEMS} problem rows, in file order; \`problem_count\` counts them all. ` +
      `They are dropped ${IMPORT_PROBLEMS_RETENTION_MS / (24 * 3_600_000)} days after the import ended (empty then)`
  })
}).annotations({ identifier: "SubscriberImport" })

/** An import in a list: its problems are counted, and listed by the import alone. */
export const SubscriberImportSummary = Schema.Struct(importFields).annotations({ identifier: "SubscriberImportSummary" })

export const ImportPathId = IdInput(ImportId, "the import's id")

const iso = (at: Date | null) => (at === null ? null : at.toISOString())

export const toImportSummary = (job: ImportJob): typeof SubscriberImportSummary.Type => ({
  id: job.id,
  status: job.status,
  file_name: job.fileName,
  byte_size: job.byteSize,
  options: { resubscribe: job.options.resubscribe, encoding: job.options.encoding, create_tags: job.options.createTags },
  counts: {
    rows: job.counts.rows,
    created: job.counts.created,
    updated: job.counts.updated,
    unchanged: job.counts.unchanged,
    failed: job.counts.failed,
    kept_status: job.counts.keptStatus
  },
  records_done: job.recordsDone,
  problem_count: job.problemCount,
  ignored_columns: job.ignoredColumns,
  failure: job.failure === null ? null : { line: job.failure.line, problem: job.failure.problem },
  created_at: job.createdAt.toISOString(),
  started_at: iso(job.startedAt),
  finished_at: iso(job.finishedAt),
  updated_at: job.updatedAt.toISOString()
})

export const toImport = (job: ImportJob): typeof SubscriberImport.Type => ({
  ...toImportSummary(job),
  problems: job.problems.map((p) => ({ line: p.line, field: p.field, problem: p.problem, email: p.email ?? null }))
})

export const importsDescription = "Subscribers brought in from a CSV file sent over HTTP: the upload answers 202 with " +
  "the import, which a worker runs a batch of 2,000 rows at a time; follow it at its `Location` until it is `completed` " +
  "or `failed`. Each row is found by email: new addresses become subscribers, existing ones get the row's names, status, " +
  "metadata keys and tags. Rows with problems are reported with their line and column, and the import carries on. " +
  "Scope `subscribers:write` to upload (`tags:write` too to make tags the file names), `subscribers:read` to follow."

export const uploadDescription = "Takes a CSV file and queues its import: either as the body (`Content-Type: text/csv`, " +
  "options in the query) or as the `file` field of `multipart/form-data` (options as the form's fields, before the file, " +
  "or in the query). The file streams in; the most it may have is the service's `IMPORT_MAX_BYTES` (100 MiB unless " +
  "configured): a larger one is 413 `payload_too_large` and nothing of it is kept. An unknown `encoding` is 400 naming it, " +
  "an empty file or a form without `file` 400, another content type 415 `unsupported_media_type`. Answers 202 with the " +
  "import and its address in `Location`. `Idempotency-Key` is not taken here (the file is not kept to compare): an upload " +
  "sent twice is imported twice, which changes nothing the first did. Scope `subscribers:write`."
