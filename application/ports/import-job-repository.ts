import type { ImportCounts, ImportFailure, ImportId, ImportJob, ImportJobOptions, OrganizationId, RowProblem, UserId } from "@roster/domain"
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
 * Which draft: an import of the organization whose file is all there, waiting to be started by
 * the person who uploaded it (`heldBy`; `null` when no person did, an API key).
 */
export interface DraftKey {
  readonly organizationId: OrganizationId
  readonly heldBy: UserId | null
  readonly id: ImportId
}

/**
 * Imports sent over HTTP: their files, kept a part at a time until a worker has read them, and
 * their progress, saved with each batch in the batch's transaction, so that a worker that takes
 * over an import starts where the last one stopped.
 */
export class ImportJobRepository extends Context.Tag("roster/ImportJobRepository")<ImportJobRepository, {
  /** Stores a new import (status `receiving`). */
  readonly insert: (job: ImportJob) => Effect.Effect<void>
  /**
   * Keeps the next part of a `receiving` import's file, and marks the import touched at `at`, so
   * that `discardAbandoned` leaves an upload alone while its parts keep coming. False when the
   * import is no longer `receiving` (given up meanwhile): nothing is kept.
   */
  readonly appendPart: (id: ImportId, part: number, bytes: Uint8Array, at: Date) => Effect.Effect<boolean>
  /** The file is all there: the import waits for a worker. */
  readonly markQueued: (id: ImportId, byteSize: number, at: Date) => Effect.Effect<void>
  /**
   * The file is all there, but the import waits for `heldBy` to start it: a draft. It stays
   * `receiving` (no worker claims it, `list` leaves it out) and `discardAbandoned` gives it up
   * once `at` is before its `before`, unless it was started.
   */
  readonly markDraft: (id: ImportId, heldBy: UserId | null, byteSize: number, at: Date) => Effect.Effect<void>
  /** The draft, if the organization has it and it is `heldBy`'s. */
  readonly findDraft: (key: DraftKey) => Effect.Effect<Option.Option<ImportJob>>
  /**
   * Starts the draft with `options`: it waits for a worker, an import like any other. The queued
   * import, or none when there is no such draft (given up, or started already).
   */
  readonly queueDraft: (key: DraftKey, options: ImportJobOptions, at: Date) => Effect.Effect<Option.Option<ImportJob>>
  /** Forgets the draft and its file; whether there was one. */
  readonly discardDraft: (key: DraftKey) => Effect.Effect<boolean>
  /** Forgets an import and its file (a file that never came in whole). */
  readonly discard: (id: ImportId) => Effect.Effect<void>
  /**
   * Forgets `receiving` imports last touched before `before` (their upload broke off, or they are
   * drafts nobody started); how many.
   */
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
   * and holds it until `leaseUntil` under `leaseToken`: from then on only that token changes it,
   * so a worker that was slower than its lease cannot touch an import another worker took over.
   */
  readonly claim: (now: Date, leaseUntil: Date, leaseToken: string) => Effect.Effect<Option.Option<ImportJob>>
  /** The import's file, a part at a time, in order. */
  readonly file: (id: ImportId) => Stream.Stream<Uint8Array>
  /**
   * Adds a batch's progress to a running import (inside the batch's transaction), if `leaseToken`
   * still holds it; whether it did. When it did not, the batch must not be kept either.
   */
  readonly saveProgress: (id: ImportId, leaseToken: string, progress: ImportProgress) => Effect.Effect<boolean>
  /**
   * Ends a running import held by `leaseToken`: `failure` makes it `failed`. Its file is forgotten.
   * Whether it did.
   */
  readonly finish: (
    id: ImportId,
    leaseToken: string,
    failure: ImportFailure | null,
    at: Date
  ) => Effect.Effect<boolean>
  /**
   * Gives a running import held by `leaseToken` back to the queue (its worker stops), keeping its
   * progress. Whether it did.
   */
  readonly release: (id: ImportId, leaseToken: string) => Effect.Effect<boolean>
  /**
   * Takes `addresses` (compared without regard to letter case) out of the problem rows of the
   * organization's imports: such a row keeps its line, column and problem, without an address.
   * How many imports changed.
   */
  readonly forgetAddresses: (organizationId: OrganizationId, addresses: ReadonlyArray<string>) => Effect.Effect<number>
  /**
   * Drops the problem rows of up to `limit` imports that ended before `before`; their counts and
   * `problemCount` stay. How many imports lost theirs.
   */
  readonly dropProblems: (before: Date, limit: number) => Effect.Effect<number>
}>() {}
