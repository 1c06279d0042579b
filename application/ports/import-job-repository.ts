import type { ImportCounts, ImportId, ImportJob, OrganizationId, RowProblem } from "@roster/domain"
import { Context, type Effect, type Option, type Stream } from "effect"
import type { KeysetPosition } from "./subscriber-repository.js"

/** What a batch of a running import adds to its record. */
export interface ImportProgress {
  readonly recordsDone: number
  /** The counts so far, the batch included. */
  readonly counts: ImportCounts
  /** The batch's problems, in file order: kept while fewer than the most reported are. */
  readonly problems: ReadonlyArray<RowProblem>
  readonly ignoredColumns: ReadonlyArray<string>
  /** When the batch was done. */
  readonly at: Date
  /** The running import stays the worker's until then. */
  readonly leaseUntil: Date
}

/**
 * Imports sent over HTTP: their files, kept a part at a time until a worker has read them, and
 * their progress, saved with each batch in the batch's transaction, so that a worker that takes
 * over an import starts where the last one stopped.
 */
export class ImportJobRepository extends Context.Tag("roster/ImportJobRepository")<ImportJobRepository, {
  /** Stores a new import (status `receiving`). */
  readonly insert: (job: ImportJob) => Effect.Effect<void>
  /** Keeps the next part of a `receiving` import's file. */
  readonly appendPart: (id: ImportId, part: number, bytes: Uint8Array) => Effect.Effect<void>
  /** The file is all there: the import waits for a worker. */
  readonly markQueued: (id: ImportId, byteSize: number, at: Date) => Effect.Effect<void>
  /** Forgets an import and its file (a file that never came in whole). */
  readonly discard: (id: ImportId) => Effect.Effect<void>
  /** Forgets `receiving` imports last touched before `before` (their upload broke off); how many. */
  readonly discardAbandoned: (before: Date) => Effect.Effect<number>
  readonly find: (organizationId: OrganizationId, id: ImportId) => Effect.Effect<Option.Option<ImportJob>>
  /** Whose import this is, if it exists. */
  readonly organizationOf: (id: ImportId) => Effect.Effect<Option.Option<OrganizationId>>
  /**
   * The organization's imports, newest first (by `createdAt`, then id), `receiving` ones left
   * out: after a keyset position, or from an offset.
   */
  readonly list: (query: {
    readonly organizationId: OrganizationId
    readonly after?: KeysetPosition | undefined
    readonly offset?: number | undefined
    readonly limit: number
  }) => Effect.Effect<ReadonlyArray<ImportJob>>
  /** How many imports `list` can list. */
  readonly count: (organizationId: OrganizationId) => Effect.Effect<number>
  /**
   * Takes the oldest import waiting for a worker, or a running one whose worker's lease ran out,
   * and holds it until `leaseUntil`.
   */
  readonly claim: (now: Date, leaseUntil: Date) => Effect.Effect<Option.Option<ImportJob>>
  /** The import's file, a part at a time, in order. */
  readonly file: (id: ImportId) => Stream.Stream<Uint8Array>
  /** Adds a batch's progress to a running import (inside the batch's transaction). */
  readonly saveProgress: (id: ImportId, progress: ImportProgress) => Effect.Effect<void>
  /** Ends a running import: `failure` makes it `failed`. Its file is forgotten. */
  readonly finish: (
    id: ImportId,
    failure: { readonly line: number | null; readonly problem: string } | null,
    at: Date
  ) => Effect.Effect<void>
  /** Gives a running import back to the queue (its worker stops), keeping its progress. */
  readonly release: (id: ImportId) => Effect.Effect<void>
}>() {}
