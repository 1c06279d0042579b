import {
  allows,
  IMPORT_PROBLEMS_RETENTION_MS,
  type ImportId,
  ImportId as ImportIdSchema,
  type ImportJob,
  type ImportLayout,
  importFailure,
  importLayout,
  ImportRefused,
  InvalidInput,
  noImportCounts,
  reason,
  UploadTooLarge,
  type UserId
} from "@roster/domain"
import { Chunk, Data, Effect, Either, Exit, Option, Stream } from "effect"
import { CsvReader, type CsvRecord } from "./ports/csv-reader.js"
import { Ids } from "./ports/ids.js"
import { ImportJobRepository } from "./ports/import-job-repository.js"
import { OrganizationRepository } from "./ports/organization-repository.js"
import { now } from "./support/clock.js"
import { cutPage, positionFromCursor } from "./support/keyset.js"
import { numberedPage, type PageNumberRequest, pageWindow } from "./support/page-numbers.js"
import { requireFound, requireOwned } from "./support/ownership.js"
import { authorize, type Principal } from "./support/principal.js"
import { SubscriberImports, unknownEncoding } from "./subscriber-imports.js"
import { operations } from "./support/operation.js"

/** Another worker holds the import now: the run's batch is not kept, and the run stops. */
class ImportTakenOver extends Data.TaggedError("ImportTakenOver") {}

/** An uploaded file is kept in parts of this size until a worker has read it. */
export const IMPORT_PART_BYTES = 1024 * 1024

/**
 * A file that stops coming in for this long is given up (its upload broke off with its process),
 * and so is a draft nobody started for as long after its file came in: time enough to look at its
 * preview and choose how to import it.
 */
const ABANDONED_AFTER_MS = 60 * 60 * 1000

/** How long a draft can be started after its file came in ({@link ImportJobs} `draft`). */
export const DRAFT_KEPT_MS = ABANDONED_AFTER_MS

/** Whose draft the principal's upload is: the person signed in; none for an API key. */
const heldByOf = (principal: Principal): UserId | null =>
  principal.credential.kind === "session" ? principal.credential.userId : null

const LIST_SORT = "created_at"

export interface ImportUpload<E, R> {
  /** The file's name as the client gave it, if it did. */
  readonly fileName: string | null
  readonly bytes: Stream.Stream<Uint8Array, E, R>
  /** Brings back unsubscribed, bounced and complained subscribers the file names. */
  readonly resubscribe: boolean
  /** The file's encoding (WHATWG name); UTF-8 unless told. */
  readonly encoding?: string | undefined
  /** The most bytes the file may have. */
  readonly maxBytes: number
}

/** The start of a file as an import would read it. */
export interface ImportPreview {
  /** The header line's cells, as the file has them. */
  readonly header: ReadonlyArray<string>
  readonly layout: ImportLayout
  /** The first records after the header, with their lines. */
  readonly rows: ReadonlyArray<CsvRecord>
  /** Records after the header, up to where the file ends or breaks. */
  readonly rowCount: number
  /** Where the file breaks, if it does: the import stops there, and the rows before it are imported. */
  readonly failure: ImportRefused | null
}

/**
 * Imports sent over HTTP: the file is kept as it comes in, and a worker runs the import
 * ({@link SubscriberImports}) batch by batch, saving its progress with each batch, so that the
 * uploader can follow it and read every problem row, and a worker that stops hands the rest to
 * another.
 */
export class ImportJobs extends Effect.Service<ImportJobs>()("roster/ImportJobs", {
  effect: Effect.gen(function*() {
    const operation = yield* operations
    const jobs = yield* ImportJobRepository
    const organizations = yield* OrganizationRepository
    const imports = yield* SubscriberImports
    const csv = yield* CsvReader
    const ids = yield* Ids

    /**
     * Stores a new import (`receiving`) and keeps the upload's file a part at a time; `received`
     * ends it once the file is all there. A file over `maxBytes`, or one that breaks off, leaves
     * nothing behind.
     */
    const receive = <E, R, A>(
      principal: Principal,
      upload: ImportUpload<E, R>,
      received: (job: ImportJob, byteSize: number) => Effect.Effect<A>
    ) =>
      Effect.gen(function*() {
        yield* authorize(principal, "subscribers:write")
        const encoding = (upload.encoding ?? "utf-8").trim().toLowerCase()
        if (!csv.knowsEncoding(encoding)) {
          return yield* new InvalidInput({ field: "encoding", reason: unknownEncoding(upload.encoding ?? encoding) })
        }
        const at = yield* now
        const job: ImportJob = {
          id: ImportIdSchema.make(yield* ids.next),
          organizationId: principal.organization.id,
          status: "receiving",
          fileName: upload.fileName,
          byteSize: 0,
          options: { resubscribe: upload.resubscribe, createTags: allows(principal.scopes, "tags:write"), encoding },
          counts: noImportCounts,
          recordsDone: 0,
          problems: [],
          problemCount: 0,
          ignoredColumns: [],
          failure: null,
          createdAt: at,
          startedAt: null,
          finishedAt: null,
          updatedAt: at
        }
        yield* jobs.insert(job)
        const kept = Effect.gen(function*() {
          let size = 0
          let part = 0
          yield* upload.bytes.pipe(
            partsOf(IMPORT_PART_BYTES),
            Stream.runForEach((bytes) =>
              Effect.gen(function*() {
                size += bytes.byteLength
                if (size > upload.maxBytes) return yield* new UploadTooLarge({ maxBytes: upload.maxBytes })
                const kept = yield* jobs.appendPart(job.id, part++, bytes, yield* now)
                if (!kept) return yield* new InvalidInput({ field: "file", reason: reason("uploadGivenUp") })
              })
            )
          )
          return yield* received(job, size)
        })
        return yield* kept.pipe(
          Effect.onExit((exit) => Exit.isSuccess(exit) ? Effect.void : jobs.discard(job.id))
        )
      })

    /**
     * Keeps an uploaded file and queues its import: the import as queued. A file over
     * `maxBytes`, or one that breaks off, leaves nothing behind.
     */
    const start = <E, R>(principal: Principal, upload: ImportUpload<E, R>) =>
      receive(principal, upload, (job, byteSize) =>
        Effect.gen(function*() {
          const queuedAt = yield* now
          yield* jobs.markQueued(job.id, byteSize, queuedAt)
          return { ...job, status: "queued" as const, byteSize, updatedAt: queuedAt }
        }))

    /**
     * Keeps an uploaded file as a draft: an import that waits, its file all there, for the person
     * who uploaded it to look at it ({@link previewDraft}) and start it ({@link startDraft}) or give
     * it up ({@link discardDraft}). Nobody else sees it; no worker takes it and no list shows it;
     * one not started within {@link DRAFT_KEPT_MS} is gone. A file over `maxBytes`, or one that
     * breaks off, leaves nothing behind.
     */
    const draft = <E, R>(
      principal: Principal,
      upload: Omit<ImportUpload<E, R>, "resubscribe">
    ) =>
      receive(principal, { ...upload, resubscribe: false }, (job, byteSize) =>
        Effect.gen(function*() {
          const receivedAt = yield* now
          yield* jobs.markDraft(job.id, heldByOf(principal), byteSize, receivedAt)
          return { ...job, byteSize, updatedAt: receivedAt }
        }))

    /** The principal's draft of this id, if it is not too old to be started. */
    const liveDraft = (principal: Principal, id: ImportId) =>
      Effect.gen(function*() {
        const key = { organizationId: principal.organization.id, heldBy: heldByOf(principal), id }
        const found = yield* jobs.findDraft(key)
        const at = yield* now
        // Older ones are given up by the workers' clean-up; until then, they are gone all the same.
        const live = Option.filter(found, (job) => job.updatedAt.getTime() > at.getTime() - DRAFT_KEPT_MS)
        return yield* requireFound("import", id, Effect.succeed(live))
      })

    /**
     * The principal's draft and what its import would read ({@link preview}): its first `rows`
     * records. Refused as the import would refuse it.
     */
    const previewDraft = operation("ImportJobs.previewDraft")(function*(principal: Principal, id: ImportId, rows: number) {
      yield* authorize(principal, "subscribers:write")
      const job = yield* liveDraft(principal, id)
      return { job, preview: yield* preview(principal, { bytes: jobs.file(id), encoding: job.options.encoding, rows }) }
    })

    /**
     * Starts the principal's draft: its import waits for a worker, as one uploaded by
     * {@link start}, with `resubscribe` chosen now. Not found once given up or started.
     */
    const startDraft = operation("ImportJobs.startDraft")(function*(
      principal: Principal,
      id: ImportId,
      options: { readonly resubscribe: boolean }
    ) {
      yield* authorize(principal, "subscribers:write")
      const job = yield* liveDraft(principal, id)
      const key = { organizationId: principal.organization.id, heldBy: heldByOf(principal), id }
      const chosen = { ...job.options, resubscribe: options.resubscribe, createTags: allows(principal.scopes, "tags:write") }
      return yield* requireFound("import", id, jobs.queueDraft(key, chosen, yield* now))
    })

    /** Gives up the principal's draft with its file; nothing happens when there is none. */
    const discardDraft = operation("ImportJobs.discardDraft")(function*(principal: Principal, id: ImportId) {
      yield* authorize(principal, "subscribers:write")
      yield* jobs.discardDraft({ organizationId: principal.organization.id, heldBy: heldByOf(principal), id })
    })

    const get = operation("ImportJobs.get")(function*(principal: Principal, id: ImportId) {
      yield* authorize(principal, "subscribers:read")
      return yield* requireOwned("import", id, jobs.find(principal.organization.id, id), () => jobs.organizationOf(id))
    })

    /** One page of the organization's imports, newest first. */
    const list = operation("ImportJobs.list")(function*(
      principal: Principal,
      query: { readonly limit: number; readonly cursor?: string | undefined }
    ) {
      yield* authorize(principal, "subscribers:read")
      const organizationId = principal.organization.id
      const after = yield* positionFromCursor(query.cursor, LIST_SORT, "desc")
      const [rows, total] = yield* Effect.all([
        jobs.list({ organizationId, limit: query.limit + 1, after }),
        jobs.count(organizationId)
      ], { concurrency: 2 })
      return { ...cutPage(rows, query.limit, LIST_SORT, "desc", (job) => job.createdAt.toISOString()), total }
    })

    const listPage = operation("ImportJobs.listPage")(function*(principal: Principal, request: PageNumberRequest) {
      yield* authorize(principal, "subscribers:read")
      const organizationId = principal.organization.id
      const window = yield* pageWindow(request, [], [])
      const [items, total] = yield* Effect.all([
        jobs.list({ organizationId, limit: window.limit, offset: window.offset }),
        jobs.count(organizationId)
      ], { concurrency: 2 })
      return numberedPage(items, total, request)
    })

    /**
     * Runs the next import waiting for a worker (or one whose worker stopped) to its end: how
     * many it ran (0 or 1). Interrupted, it stops after the batch in hand and goes back to the
     * queue with its progress; killed, it comes back when its lease runs out. A run that finds
     * another worker took the import over (it was slower than its lease) rolls its batch back and
     * stops there, leaving the import to that worker.
     */
    const runNext = operation("ImportJobs.runNext")((leaseMs: number) =>
      Effect.gen(function*() {
        const at = yield* now
        yield* jobs.discardAbandoned(new Date(at.getTime() - ABANDONED_AFTER_MS))
        const leaseToken = yield* ids.next
        const claimed = yield* jobs.claim(at, new Date(at.getTime() + leaseMs), leaseToken)
        if (Option.isNone(claimed)) return 0
        const job = claimed.value
        const organization = yield* organizations.findById(job.organizationId)
        if (Option.isNone(organization)) {
          yield* jobs.finish(job.id, leaseToken, importFailure(null, reason("organizationGone")), yield* now)
          return 1
        }
        const outcome = yield* imports.run(jobs.file(job.id), {
          organization: organization.value,
          options: job.options,
          skipRecords: job.recordsDone,
          countsSoFar: job.counts,
          checkpoint: (report) =>
            Effect.flatMap(now, (saved) =>
              jobs.saveProgress(job.id, leaseToken, {
                recordsDone: report.recordsDone,
                counts: report.total,
                problems: report.problems,
                ignoredColumns: report.ignoredColumns,
                at: saved,
                leaseUntil: new Date(saved.getTime() + leaseMs)
              })).pipe(Effect.filterOrFail((held) => held, () => new ImportTakenOver()))
        }).pipe(
          Effect.map((result): Option.Option<ImportJob["failure"]> =>
            Option.some(result.failure === null ? null : importFailure(result.failure.line, result.failure.reason))
          ),
          Effect.catchAll((error) =>
            Effect.succeed(
              error instanceof ImportTakenOver
                ? Option.none()
                // The import cannot go on (a tag it needs could not be made): it stops there, and the rows before stay imported.
                : Option.some(importFailure(null, reason("foreign", { text: error.message })))
            )
          ),
          Effect.onInterrupt(() => jobs.release(job.id, leaseToken))
        )
        if (Option.isSome(outcome)) yield* jobs.finish(job.id, leaseToken, outcome.value, yield* now)
        return 1
      }))

    /**
     * Drops the problem rows (they name addresses) of up to `limit` imports that ended more than
     * {@link IMPORT_PROBLEMS_RETENTION_MS} ago; their counts stay. How many lost theirs.
     */
    const pruneProblems = operation("ImportJobs.pruneProblems")((limit: number) =>
      Effect.flatMap(now, (at) => jobs.dropProblems(new Date(at.getTime() - IMPORT_PROBLEMS_RETENTION_MS), limit)))

    /**
     * What an import of a file would read, before it is started: its header, how the import lays
     * its columns out (or why it refuses the file), its first `rows` records, how many records it
     * has and where it breaks, if it does. Reads the file through once, holding only those rows.
     */
    const preview = <E, R>(principal: Principal, upload: { readonly bytes: Stream.Stream<Uint8Array, E, R>; readonly encoding?: string | undefined; readonly rows: number }) =>
      Effect.gen(function*() {
        yield* authorize(principal, "subscribers:write")
        const encoding = (upload.encoding ?? "utf-8").trim().toLowerCase()
        if (!csv.knowsEncoding(encoding)) {
          return yield* new InvalidInput({ field: "encoding", reason: unknownEncoding(upload.encoding ?? encoding) })
        }
        const first: Array<CsvRecord> = []
        let records = 0
        const failure = yield* csv.records(upload.bytes, { encoding }).pipe(
          Stream.runForEachChunk((chunk) =>
            Effect.sync(() => {
              for (const record of chunk) if (first.length <= upload.rows) first.push(record)
              records += Chunk.size(chunk)
            })
          ),
          Effect.as(null),
          Effect.catchIf((error): error is ImportRefused => error instanceof ImportRefused, Effect.succeed)
        )
        const [header, ...rows] = first
        if (header === undefined) return yield* (failure ?? new ImportRefused({ line: null, reason: reason("fileEmpty") }))
        const layout = importLayout(header.cells)
        if (Either.isLeft(layout)) return yield* layout.left
        return { header: header.cells, layout: layout.right, rows, rowCount: records - 1, failure } satisfies ImportPreview
      })

    return { start, draft, previewDraft, startDraft, discardDraft, get, list, listPage, preview, runNext, pruneProblems } as const
  })
}) {}

const concatBytes = (parts: ReadonlyArray<Uint8Array>, length: number): Uint8Array => {
  if (parts.length === 1 && parts[0]!.byteLength === length) return parts[0]!
  const whole = new Uint8Array(length)
  let offset = 0
  for (const part of parts) {
    whole.set(part, offset)
    offset += part.byteLength
  }
  return whole
}

/** Bytes regrouped into parts of `size` (the last one smaller), whatever sizes they came in. */
const partsOf = (size: number) => <E, R>(bytes: Stream.Stream<Uint8Array, E, R>): Stream.Stream<Uint8Array, E, R> =>
  Stream.suspend(() => {
    let pending: Array<Uint8Array> = []
    let pendingBytes = 0
    const take = (): Uint8Array => {
      const whole = concatBytes(pending, pendingBytes)
      pending = [whole.subarray(size)]
      pendingBytes = whole.byteLength - size
      return whole.subarray(0, size)
    }
    return bytes.pipe(
      Stream.mapConcat((chunk) => {
        pending.push(chunk)
        pendingBytes += chunk.byteLength
        const out: Array<Uint8Array> = []
        while (pendingBytes >= size) out.push(take())
        return out
      }),
      Stream.concat(Stream.suspend(() => pendingBytes > 0 ? Stream.make(concatBytes(pending, pendingBytes)) : Stream.empty))
    )
  })
