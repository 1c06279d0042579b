import {
  addImportCounts,
  DomainEvent,
  emailKey,
  EventId,
  type EventType,
  type ImportCounts,
  importLayout,
  type ImportLayout,
  ImportRefused,
  importRow,
  type ImportRow,
  type ImportRowOptions,
  InvalidInput,
  MAX_REPORTED_PROBLEMS,
  MAX_TAGS_PER_ORGANIZATION,
  MAX_TAGS_PER_SUBSCRIBER,
  mayCarry,
  noImportCounts,
  type Organization,
  type OrganizationId,
  planImportRow,
  reason,
  rowProblem,
  type RowProblem,
  type Subscriber,
  SubscriberId,
  type Tag,
  type TagId,
  tagNameKey,
  type TagSubscription
} from "@roster/domain"
import { type Chunk, Effect, Either, Stream } from "effect"
import { CsvReader, type CsvRecord } from "./ports/csv-reader.js"
import { Ids } from "./ports/ids.js"
import {
  type ImportBatch,
  type ImportEvent,
  type ImportedSubscriber,
  SubscriberImportStore
} from "./ports/subscriber-import-store.js"
import { TagRepository } from "./ports/tag-repository.js"
import { UnitOfWork } from "./ports/unit-of-work.js"
import { now } from "./support/clock.js"
import { letOthersRun, ROWS_BETWEEN_TURNS } from "./support/event-loop-turns.js"
import { IMPORT_EVENT_SOURCE, subscriberSnapshot, tagSubscriptionData } from "./support/event-payloads.js"
import { FirstLines } from "./support/first-lines.js"
import { Limits } from "./support/limits.js"
import { makeTagsMaker } from "./support/tag-names.js"

/** Why an encoding's name is refused. */
export const unknownEncoding = (name: string) => reason("unknownEncoding", { name })

/** Records read, checked and written together: one read and one write of the store each. */
export const IMPORT_BATCH_SIZE = 2000

/** The tags a new subscriber holds. */
const noTagsHeld: ReadonlySet<string> = new Set()

/** How often a batch's rows that others changed meanwhile are read and decided again before they are reported. */
const CONFLICT_ROUNDS = 3

/** An import that made or changed this many subscribers leaves the store settled (see `SubscriberImportStore.settle`). */
const SETTLE_AFTER_ROWS = 10_000

export interface SubscriberImportOptions extends ImportRowOptions {
  /** Tag names no tag has become tags; otherwise the row is reported. */
  readonly createTags: boolean
  readonly encoding: string
}

/** A batch done: what it adds to the import, and where the import stands after it. */
export interface ImportBatchReport {
  /** Records of the file done, the header included. */
  readonly recordsDone: number
  /** What this batch did. */
  readonly counts: ImportCounts
  /** This batch's problems, in file order. */
  readonly problems: ReadonlyArray<RowProblem>
  /** The whole import so far. */
  readonly total: ImportCounts
  readonly ignoredColumns: ReadonlyArray<string>
}

export interface SubscriberImportRequest<CE = never> {
  readonly organization: Organization
  readonly options: SubscriberImportOptions
  /**
   * Records of the file (the header included) an earlier run is done with: they are read again
   * only to know their addresses, and nothing of theirs is counted or written.
   */
  readonly skipRecords?: number | undefined
  /** The counts of the earlier run, which this one adds to. */
  readonly countsSoFar?: ImportCounts | undefined
  /**
   * Runs inside each batch's transaction, after its writes: a batch and its record commit
   * together. Its failure rolls the batch back and stops the import with that failure.
   */
  readonly checkpoint?: ((report: ImportBatchReport) => Effect.Effect<void, CE>) | undefined
  /** Runs after each batch has committed (progress to show). */
  readonly progress?: ((report: ImportBatchReport) => Effect.Effect<void>) | undefined
}

export interface SubscriberImportResult {
  readonly counts: ImportCounts
  /** The first problems, in file order. */
  readonly problems: ReadonlyArray<RowProblem>
  readonly problemCount: number
  readonly ignoredColumns: ReadonlyArray<string>
  /** Why the file could not be read to its end, if it could not: the rows before stay imported. */
  readonly failure: ImportRefused | null
}

interface ReadState {
  layout: ImportLayout | undefined
  recordsSeen: number
  /** Each address's first line in the file, by email key: a later row with it is reported. */
  readonly firstLines: FirstLines
  counts: ImportCounts
  readonly problems: Array<RowProblem>
  problemCount: number
}

/**
 * Bringing subscribers in from a CSV file, for operators (the CLI) and over HTTP (a worker runs
 * it). The file streams through: a batch of records at a time is checked, the subscribers it
 * names read, and every change of the batch written in one transaction, so memory stays flat
 * whatever the file's size. Each subscriber is found by email: a new one is made, one that exists
 * gets the row's names, status and metadata keys, and the row's tags are added. Bad rows are
 * reported with their line and the import carries on; a file whose structure breaks stops the
 * import at that line. Running a file again changes nothing the first run did, so an import
 * stopped by anything can be run again.
 */
export class SubscriberImports extends Effect.Service<SubscriberImports>()("roster/SubscriberImports", {
  effect: Effect.gen(function*() {
    const csv = yield* CsvReader
    const store = yield* SubscriberImportStore
    const tags = yield* TagRepository
    const unitOfWork = yield* UnitOfWork
    const ids = yield* Ids
    const limits = yield* Limits
    const makeTags = makeTagsMaker(tags, ids)

    const eventOf = (id: string, organizationId: OrganizationId, type: EventType, occurredAt: Date, data: Record<string, unknown>) =>
      // Built here from checked values: not checked again.
      new DomainEvent({ id: EventId.make(id), organizationId, type, occurredAt, data: { ...data, source: IMPORT_EVENT_SOURCE } }, true)

    const run = <E, R, CE = never>(bytes: Stream.Stream<Uint8Array, E, R>, request: SubscriberImportRequest<CE>) =>
      Effect.gen(function*() {
        const { organization, options } = request
        if (!csv.knowsEncoding(options.encoding)) {
          return yield* new InvalidInput({ field: "encoding", reason: unknownEncoding(options.encoding) })
        }
        const organizationId = organization.id
        const max = limits.subscribers(organization.tier)
        const skip = request.skipRecords ?? 0
        /**
         * Tags of the organization met so far, by name key; `null`: no such tag, and none may be made;
         * `"full"`: no such tag, and the organization holds as many tags as it may.
         */
        const tagCache = new Map<string, Tag | null | "full">()
        const state: ReadState = {
          layout: undefined,
          recordsSeen: 0,
          firstLines: new FirstLines(),
          counts: request.countsSoFar ?? noImportCounts,
          problems: [],
          problemCount: 0
        }

        /** Batches being written (one at most): while there is one, reading and deciding let it go on every few rows. */
        let writing = 0
        // Otherwise they run on without waiting: yielding to the event loop costs a timer's turn.
        const turn = Effect.suspend(() => writing > 0 ? letOthersRun : Effect.void)

        const reportProblems = (batchProblems: ReadonlyArray<RowProblem>) => {
          for (const p of batchProblems) {
            if (state.problems.length < MAX_REPORTED_PROBLEMS) state.problems.push(p)
          }
          state.problemCount += batchProblems.length
        }

        /** The tags a batch names, found or made once for the whole import. */
        const tagsFor = (rows: ReadonlyArray<ImportRow>) =>
          Effect.gen(function*() {
            const unknown = new Map<string, string>()
            for (const row of rows) {
              for (const name of row.tagNames) {
                const key = tagNameKey(name)
                if (!tagCache.has(key) && !unknown.has(key)) unknown.set(key, name)
              }
            }
            if (unknown.size === 0) return
            for (const tag of yield* tags.findByNames(organizationId, [...unknown.values()])) {
              tagCache.set(tagNameKey(tag.name), tag)
              unknown.delete(tagNameKey(tag.name))
            }
            if (!options.createTags) {
              for (const key of unknown.keys()) tagCache.set(key, null)
              return
            }
            // All at once, in the order of their keys: the first of them get the room the organization has left.
            const made = yield* makeTags(organizationId, [...unknown].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, name]) => name))
            for (const key of unknown.keys()) tagCache.set(key, made.get(key) ?? "full")
          })

        /**
         * What a batch's rows do, from the subscribers they name as they are now: read and decided
         * before the batch's transaction, while the batch before it is written.
         */
        const prepare = (rows: ReadonlyArray<ImportRow>) =>
          Effect.gen(function*() {
            const at = yield* now
            const found = yield* store.find(organizationId, rows.map((row) => emailKey(row.email)))
            // Enough new ids for every subscriber and event the rows could make.
            const fresh = yield* ids.take(rows.reduce((n, row) => n + 2 + row.tagNames.length, 0))
            const decided = yield* decide(rows, found, at, fresh)
            // Made ready for the store here, before the batch's transaction, while the batch before it is written.
            const prepared = yield* store.prepare(decided.batch)
            return { ...decided, prepared }
          })

        type Decided = Effect.Effect.Success<ReturnType<typeof prepare>>

        /**
         * Writes a batch's rows as `prepare` decided them; rows that others changed meanwhile are
         * read, decided and written again from what is there then. What the rows did, and the
         * problems of those that failed.
         */
        const writeRows = (rows: ReadonlyArray<ImportRow>, decidedFirst: Decided, recordsDone: number) =>
          Effect.gen(function*() {
            const problems: Array<RowProblem> = []
            let counts: ImportCounts = { ...noImportCounts, rows: rows.length }
            let decided = decidedFirst
            for (let round = 0;; round++) {
              problems.push(...decided.problems)
              const outcome = yield* store.write(decided.prepared)
              const retry: Array<ImportRow> = []
              for (const { row, subscriberId, kind } of decided.planned) {
                if (outcome.conflicted.has(subscriberId)) {
                  if (round + 1 < CONFLICT_ROUNDS) retry.push(row)
                  else problems.push(rowProblem(row.line, "row", reason("rowKeptChanging"), row.email))
                } else if (outcome.overLimit.has(subscriberId)) {
                  // Only a plan with a limit has rows over it.
                  const full = reason("rowPlanFull", { tier: organization.tier, max: max ?? 0 })
                  problems.push(rowProblem(row.line, "row", full, row.email))
                } else {
                  counts = addImportCounts(counts, { ...noImportCounts, [kind]: 1 })
                }
              }
              counts = addImportCounts(counts, { ...noImportCounts, keptStatus: decided.keptStatus.filter((id) => !outcome.conflicted.has(id)).length })
              if (retry.length === 0) break
              decided = yield* prepare(retry)
            }
            counts = { ...counts, failed: problems.length }
            return { counts, problems: problems.sort((a, b) => a.line - b.line), recordsDone }
          })

        /** What a batch's rows do to the subscribers `found`: the writes, and the rows that cannot be taken. */
        const decide = (rows: ReadonlyArray<ImportRow>, found: ReadonlyMap<string, ImportedSubscriber>, at: Date, fresh: ReadonlyArray<string>) =>
          Effect.gen(function*() {
            let used = 0
            const nextId = () => fresh[used++]!
            const problems: Array<RowProblem> = []
            const planned: Array<{ row: ImportRow; subscriberId: SubscriberId; kind: "created" | "updated" | "unchanged" }> = []
            const keptStatus: Array<SubscriberId> = []
            const creates: Array<Subscriber> = []
            const updates: Array<{ subscriber: Subscriber; seen: Date }> = []
            const attachments: Array<{ subscriberId: SubscriberId; tagIds: ReadonlyArray<TagId> }> = []
            const events: Array<ImportEvent> = []
            for (const [i, row] of rows.entries()) {
              // The batch being written meanwhile goes on as soon as the database answers it.
              if (i > 0 && i % ROWS_BETWEEN_TURNS === 0) yield* turn
              const wantedTags: Array<Tag> = []
              let missingTag: { readonly name: string; readonly full: boolean } | undefined
              for (const name of row.tagNames) {
                const tag = tagCache.get(tagNameKey(name))
                if (tag === null || tag === undefined || tag === "full") missingTag ??= { name, full: tag === "full" }
                else wantedTags.push(tag)
              }
              if (missingTag !== undefined) {
                const why = missingTag.full
                  ? reason("rowTagsFull", { name: missingTag.name, max: MAX_TAGS_PER_ORGANIZATION })
                  : reason("noTagNamedNeedsScope", { name: missingTag.name })
                problems.push(rowProblem(row.line, "tags", why, row.email))
                continue
              }
              const existing = found.get(emailKey(row.email))
              if (existing?.erasureRequested === true) {
                problems.push(rowProblem(row.line, "email", reason("rowErased"), row.email))
                continue
              }
              const id = existing?.subscriber.id ?? SubscriberId.make(nextId())
              const plan = planImportRow(row, existing?.subscriber, options, { id, organizationId, at })
              if (Either.isLeft(plan)) {
                problems.push(plan.left)
                continue
              }
              const { change } = plan.right
              const had = existing === undefined ? noTagsHeld : new Set<string>(existing.tags.map(({ tag }) => tag.id))
              const added: Array<Tag> = []
              for (const tag of wantedTags) {
                if (!had.has(tag.id) && !added.some((a) => a.id === tag.id)) added.push(tag)
              }
              if (!mayCarry(MAX_TAGS_PER_SUBSCRIBER, had.size, added.length)) {
                const count = had.size + added.length
                problems.push(rowProblem(row.line, "tags", reason("rowSubscriberTags", { count, max: MAX_TAGS_PER_SUBSCRIBER }), row.email))
                continue
              }
              const tagsAfter: ReadonlyArray<TagSubscription> = [
                ...(existing?.tags ?? []),
                ...added.map((tag) => ({ tag, subscribedAt: at }))
              ]
              if (added.length > 0) attachments.push({ subscriberId: id, tagIds: added.map((tag) => tag.id) })
              const subscriber = change.subscriber
              switch (change._tag) {
                case "Create":
                  creates.push(subscriber)
                  events.push({
                    event: eventOf(nextId(), organizationId, "subscriber.created", at, { subscriber: subscriberSnapshot(subscriber, tagsAfter) }),
                    subscriberId: id,
                    tagId: null
                  })
                  break
                case "Update":
                  updates.push({ subscriber, seen: existing!.subscriber.updatedAt })
                  events.push({
                    event: eventOf(nextId(), organizationId, "subscriber.updated", at, {
                      subscriber: subscriberSnapshot(subscriber, tagsAfter),
                      changed: change.changed
                    }),
                    subscriberId: id,
                    tagId: null
                  })
                  break
                case "Unchanged":
                  if (added.length > 0) {
                    // Nothing of the subscriber changes, but their tags must be theirs as read.
                    updates.push({ subscriber, seen: existing!.subscriber.updatedAt })
                  }
                  break
              }
              // A new subscriber's tags are told in its `subscriber.created`: one event for each subscriber an import brings.
              for (const tag of change._tag === "Create" ? [] : added) {
                events.push({
                  event: eventOf(nextId(), organizationId, "tag.subscribed", at, tagSubscriptionData(subscriber, tag)),
                  subscriberId: id,
                  tagId: tag.id
                })
              }
              if (plan.right.keptStatus) keptStatus.push(id)
              planned.push({
                row,
                subscriberId: id,
                kind: change._tag === "Create" ? "created" : change._tag === "Update" || added.length > 0 ? "updated" : "unchanged"
              })
            }
            const batch: ImportBatch = { organizationId, creates, updates, attachments, events, max, at }
            return { batch, planned, problems, keptStatus }
          })

        /** Reads a batch of records into rows, or problems; the header sets the layout. */
        const readRecords = (records: Chunk.Chunk<CsvRecord>) =>
          Effect.gen(function*() {
            const rows: Array<ImportRow> = []
            const problems: Array<RowProblem> = []
            let taken = 0
            for (const record of records) {
              if (taken++ > 0 && taken % ROWS_BETWEEN_TURNS === 0) yield* turn
              const skipped = state.recordsSeen < skip
              state.recordsSeen++
              if (state.layout === undefined) {
                const layout = importLayout(record.cells)
                if (Either.isLeft(layout)) return yield* layout.left
                state.layout = layout.right
                continue
              }
              const read = importRow(state.layout, record.cells, record.line)
              if (Either.isLeft(read)) {
                if (!skipped) problems.push(read.left)
                continue
              }
              const row = read.right
              if (row === undefined) continue
              const first = state.firstLines.firstOr(emailKey(row.email), row.line)
              if (first !== undefined) {
                if (!skipped) {
                  problems.push(rowProblem(row.line, "email", reason("rowEmailTwice", { first }), row.email))
                }
                continue
              }
              if (!skipped) rows.push(row)
            }
            return { rows, problems }
          })

        /** A batch read, checked and decided: its rows to write as decided, and the problems found reading it. */
        const readBatch = (records: Chunk.Chunk<CsvRecord>) =>
          Effect.gen(function*() {
            const { problems, rows } = yield* readRecords(records)
            const recordsDone = state.recordsSeen
            yield* tagsFor(rows)
            const decided = rows.length === 0 ? undefined : yield* prepare(rows)
            return { rows, decided, readProblems: problems, recordsDone }
          })

        type ReadBatch = Effect.Effect.Success<ReturnType<typeof readBatch>>

        const reportOf = (
          { readProblems, recordsDone }: ReadBatch,
          written: { readonly counts: ImportCounts; readonly problems: ReadonlyArray<RowProblem> },
          before: ImportCounts
        ): ImportBatchReport => {
          const counts = addImportCounts(written.counts, { ...noImportCounts, rows: readProblems.length, failed: readProblems.length })
          return {
            recordsDone,
            counts,
            problems: [...readProblems, ...written.problems].sort((a, b) => a.line - b.line),
            total: addImportCounts(before, counts),
            ignoredColumns: state.layout?.ignored ?? []
          }
        }

        /**
         * Writes a batch in one transaction, with its checkpoint when there is one, one batch after
         * the other, so that each checkpoint holds every batch before it and the totals so far.
         * The batches after it are read and decided meanwhile (their rows never share a subscriber
         * with it: each address is taken once in the file), so that the database works on one
         * while the next is made ready.
         */
        const writeBatch = (read: ReadBatch) => {
          if (read.decided === undefined) {
            const report = reportOf(read, { counts: noImportCounts, problems: [] }, state.counts)
            return request.checkpoint === undefined ? Effect.succeed(report) : Effect.as(request.checkpoint(report), report)
          }
          const write = unitOfWork.transaction(Effect.flatMap(writeRows(read.rows, read.decided, read.recordsDone), (written) => {
            const report = reportOf(read, written, state.counts)
            return request.checkpoint === undefined ? Effect.succeed(report) : Effect.as(request.checkpoint(report), report)
          }))
          return Effect.suspend(() => {
            writing++
            return Effect.ensuring(write, Effect.sync(() => writing--))
          }).pipe(Effect.uninterruptible)
        }

        /** Counts a committed batch (a batch rolled back is neither counted nor reported), in file order. */
        const account = (done: ImportBatchReport) =>
          Effect.suspend(() => {
            const report = { ...done, total: addImportCounts(state.counts, done.counts) }
            state.counts = report.total
            reportProblems(report.problems)
            return request.progress === undefined ? Effect.void : request.progress(report)
          })

        const records = csv.records(bytes, { encoding: options.encoding })
        const failure = yield* records.pipe(
          Stream.grouped(IMPORT_BATCH_SIZE),
          Stream.mapEffect(readBatch),
          // One batch made ready ahead of the one being written.
          Stream.buffer({ capacity: 1 }),
          Stream.mapEffect(writeBatch),
          Stream.mapEffect(account),
          Stream.runDrain,
          Effect.as(null),
          Effect.catchIf((error): error is ImportRefused => error instanceof ImportRefused, Effect.succeed)
        )
        const refusal = failure ?? (state.layout === undefined ? new ImportRefused({ line: null, reason: reason("fileEmpty") }) : null)
        if (state.counts.created + state.counts.updated >= SETTLE_AFTER_ROWS) yield* store.settle
        return {
          counts: state.counts,
          problems: state.problems,
          problemCount: state.problemCount,
          ignoredColumns: state.layout?.ignored ?? [],
          failure: refusal
        } satisfies SubscriberImportResult
      })

    return { run } as const
  })
}) {}
