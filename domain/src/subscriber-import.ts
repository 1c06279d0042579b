import { Either, Schema } from "effect"
import { EmailAddress, emailAddressReason } from "./email-address.js"
import type { ImportId, OrganizationId, SubscriberId } from "./ids.js"
import { MAX_METADATA_KEY_LENGTH, MAX_METADATA_KEYS, metadataReason } from "./metadata.js"
import { applySubscriberChanges, personNameReason, Subscriber, type SubscriberStatus, subscriberStatuses } from "./subscriber.js"
import { tagNameKey, tagNameReason } from "./tag.js"
import { type Reason, reason, ReasonSchema, reasonText } from "./reason.js"

/**
 * Bringing subscribers in from a CSV file: which column holds what, what each row asks for, and
 * what becomes of a subscriber the file names. The file itself is read elsewhere; these rules see
 * its cells as text.
 */

/** The columns an import reads; any other column is passed over and named in the report. */
export const IMPORT_COLUMNS = ["email", "first_name", "last_name", "status", "tags", "metadata.KEY"] as const

/** Beyond the header's known columns and the metadata a subscriber may hold, a file is not a list of subscribers. */
export const MAX_IMPORT_COLUMNS = 200

/** Tags a row may name. */
export const MAX_IMPORT_ROW_TAGS = 50

/** Problems an import keeps to report in full; beyond these it only counts them. */
export const MAX_REPORTED_PROBLEMS = 1000

/**
 * An import sent over HTTP keeps its problem rows (which name addresses) this long after it ended;
 * then only their count stays.
 */
export const IMPORT_PROBLEMS_RETENTION_MS = 30 * 24 * 3_600_000

/** A file an import cannot read at all, or stops reading: why, and at which line if one is to blame. */
export class ImportRefused extends Schema.TaggedError<ImportRefused>()("ImportRefused", {
  line: Schema.NullOr(Schema.Number),
  reason: ReasonSchema
}) {
  /** Why, in English, without the line. */
  get problem(): string {
    return reasonText(this.reason)
  }

  override get message() {
    return this.line === null ? this.problem : `line ${this.line}: ${this.problem}`
  }
}

/** Where each thing an import reads sits in a row (0-based), as the header line says. */
export interface ImportLayout {
  readonly email: number
  readonly firstName: number | undefined
  readonly lastName: number | undefined
  readonly status: number | undefined
  readonly tags: number | undefined
  /** `metadata.KEY` columns: the key (as written after the prefix) and where it sits. */
  readonly metadata: ReadonlyArray<readonly [key: string, index: number]>
  /** The columns the import passes over, as the header names them. */
  readonly ignored: ReadonlyArray<string>
  /** How many columns the header has; a row with more or fewer is reported. */
  readonly width: number
}

type KnownColumn = "email" | "first_name" | "last_name" | "status" | "tags" | "created_at"

/**
 * Names that common exports (Mailchimp, Kit, spreadsheets) give the columns an import reads, once
 * lower-cased with spaces and dashes as underscores. `created_at` is what an export of ours
 * writes: read as known, and left alone (a subscriber's creation time is the time they came in).
 */
const columnAliases: Readonly<Record<string, KnownColumn>> = {
  email: "email",
  email_address: "email",
  e_mail: "email",
  e_mail_address: "email",
  first_name: "first_name",
  firstname: "first_name",
  given_name: "first_name",
  last_name: "last_name",
  lastname: "last_name",
  surname: "last_name",
  family_name: "last_name",
  status: "status",
  tags: "tags",
  tag: "tags",
  created_at: "created_at"
}

const METADATA_PREFIX = "metadata."

const normalisedName = (name: string) => name.trim().toLowerCase().replace(/[\s-]+/g, "_")

const listed = (names: ReadonlyArray<string>, most = 10) => {
  const shown = names.slice(0, most).map((name) => `'${name}'`).join(", ")
  return names.length > most ? `${shown} and ${names.length - most} more` : shown
}

const refused = (why: Reason) => Either.left(new ImportRefused({ line: 1, reason: why }))

/** How a header line lays out the rows under it, or why the file cannot be imported. */
export const importLayout = (header: ReadonlyArray<string>): Either.Either<ImportLayout, ImportRefused> => {
  if (header.length > MAX_IMPORT_COLUMNS) {
    return refused(reason("headerColumns", { count: header.length, max: MAX_IMPORT_COLUMNS }))
  }
  const known = new Map<KnownColumn, number>()
  const metadata: Array<readonly [string, number]> = []
  const metadataKeys = new Map<string, number>()
  const ignored: Array<string> = []
  for (const [index, cell] of header.entries()) {
    const name = cell.trim()
    if (name.toLowerCase().startsWith(METADATA_PREFIX)) {
      const key = name.slice(METADATA_PREFIX.length).trim()
      if (key.length === 0) return refused(reason("headerMetadataNoKey", { column: index + 1, name, prefix: METADATA_PREFIX }))
      if (key.length > MAX_METADATA_KEY_LENGTH) {
        return refused(reason("headerMetadataKeyTooLong", { column: index + 1, max: MAX_METADATA_KEY_LENGTH }))
      }
      const before = metadataKeys.get(key)
      if (before !== undefined) return refused(reason("headerMetadataTwice", { first: before + 1, second: index + 1, name }))
      metadataKeys.set(key, index)
      metadata.push([key, index])
      continue
    }
    const column = columnAliases[normalisedName(name)]
    if (column === undefined) {
      ignored.push(name.length === 0 ? `(column ${index + 1}, unnamed)` : name)
      continue
    }
    const before = known.get(column)
    if (before !== undefined) {
      return refused(
        reason("headerColumnTwice", { first: before + 1, firstName: header[before]!.trim(), second: index + 1, secondName: name, field: column })
      )
    }
    known.set(column, index)
  }
  const email = known.get("email")
  if (email === undefined) {
    const names = header.map((cell) => cell.trim()).filter((name) => name.length > 0)
    return refused(reason("headerNoEmail", { names: names.length === 0 ? "" : listed(names) }))
  }
  if (metadata.length > MAX_METADATA_KEYS) {
    return refused(reason("headerMetadataColumns", { count: metadata.length, max: MAX_METADATA_KEYS }))
  }
  return Either.right({
    email,
    firstName: known.get("first_name"),
    lastName: known.get("last_name"),
    status: known.get("status"),
    tags: known.get("tags"),
    metadata,
    ignored,
    width: header.length
  })
}

/** What one row of a file asks for. Absent fields leave what a subscriber already has as it is. */
export interface ImportRow {
  /** The row's line in the file (the header is line 1). */
  readonly line: number
  readonly email: EmailAddress
  readonly firstName: string | undefined
  readonly lastName: string | undefined
  readonly status: SubscriberStatus | undefined
  /** Tag names to attach (never detached by an import), each once. */
  readonly tagNames: ReadonlyArray<string>
  /** Metadata keys to set; keys the row leaves empty stay as they are. */
  readonly metadata: Readonly<Record<string, unknown>>
}

/** A row an import could not take: where, which column, and why. */
export interface RowProblem {
  readonly line: number
  /** The column to blame, as an import names it (`email`, `status`, `metadata.plan`, `row`). */
  readonly field: string
  /** Why, as a catalogued reason: the dashboard words it in the reader's language. */
  readonly reason: Reason
  /** Why, in English: the wire forms' words, and what a CSV of the problems holds. */
  readonly problem: string
  /** The row's address, when it has a usable one. */
  readonly email?: string | undefined
}

/** A row problem, worded in English from its reason. */
export const rowProblem = (line: number, field: string, why: Reason, email?: string): RowProblem => ({
  line,
  field,
  reason: why,
  problem: reasonText(why),
  ...(email === undefined ? {} : { email })
})

/**
 * Why a stored problem or failure was reported: its reason, or, for one kept before problems
 * carried reasons, its English words as they were written.
 */
export const reasonOfStored = (stored: { readonly reason?: Reason | undefined; readonly problem: string }): Reason =>
  stored.reason ?? reason("foreign", { text: stored.problem })

/** A cell decoded from bytes that are not in the file's encoding holds this character. */
const REPLACEMENT_CHARACTER = "\uFFFD"

const problem = (line: number, field: string, why: Reason, email?: string): Either.Either<never, RowProblem> =>
  Either.left(rowProblem(line, field, why, email))

/** A cell a spreadsheet would run as a formula: it starts with `=`, `+`, `-`, `@`, a tab or a carriage return. */
const formulaStart = /^[=+\-@\t\r]/

/**
 * A cell as an export writes it: one a spreadsheet would run as a formula gets a leading
 * apostrophe, so that it is shown as text and never run.
 */
export const neutralisedCell = (cell: string): string => (formulaStart.test(cell) ? `'${cell}` : cell)

/** A cell as an import reads it: the apostrophe an export put before a formula is taken off again. */
export const restoredCell = (cell: string): string => (cell.startsWith("'") && formulaStart.test(cell.slice(1)) ? cell.slice(1) : cell)

const cellAt = (cells: ReadonlyArray<string>, index: number | undefined): string | undefined => {
  if (index === undefined) return undefined
  const cell = cells[index]!.trim()
  return cell.length === 0 ? undefined : restoredCell(cell)
}

/**
 * A metadata cell's value: text as it is, except a JSON object or array (an export of ours writes
 * such values as JSON), which is read back as that value.
 */
const metadataValue = (cell: string): unknown => {
  if ((cell.startsWith("{") && cell.endsWith("}")) || (cell.startsWith("[") && cell.endsWith("]"))) {
    try {
      return JSON.parse(cell)
    } catch {
      return cell
    }
  }
  return cell
}

const statusReason = reason("statusOneOf", { statuses: subscriberStatuses.join(", ") })

/**
 * What a row asks for, or the first thing wrong with it. A row whose cells are all empty asks for
 * nothing (`undefined`): blank lines are passed over.
 */
export const importRow = (
  layout: ImportLayout,
  cells: ReadonlyArray<string>,
  line: number
): Either.Either<ImportRow | undefined, RowProblem> => {
  if (cells.every((cell) => cell.trim().length === 0)) return Either.right(undefined)
  if (cells.length !== layout.width) {
    return problem(line, "row", reason("rowCells", { cells: cells.length, columns: layout.width }))
  }
  if (cells.some((cell) => cell.includes(REPLACEMENT_CHARACTER))) {
    return problem(line, "row", reason("rowNotInEncoding"))
  }
  const email = cellAt(cells, layout.email)
  if (email === undefined) return problem(line, "email", reason("cellEmpty"))
  const emailReason = emailAddressReason(email)
  if (emailReason !== undefined) return problem(line, "email", emailReason)

  const names: Array<[field: string, index: number | undefined]> = [["first_name", layout.firstName], ["last_name", layout.lastName]]
  const [firstName, lastName] = names.map(([, index]) => cellAt(cells, index))
  for (const [i, [field]] of names.entries()) {
    const value = i === 0 ? firstName : lastName
    const nameReason = value === undefined ? undefined : personNameReason(value)
    if (nameReason !== undefined) return problem(line, field, nameReason, email)
  }

  const statusCell = cellAt(cells, layout.status)?.toLowerCase()
  const status = subscriberStatuses.find((s) => s === statusCell)
  if (statusCell !== undefined && status === undefined) return problem(line, "status", statusReason, email)

  const tagNames: Array<string> = []
  const tagKeys = new Set<string>()
  for (const given of (cellAt(cells, layout.tags) ?? "").split(",")) {
    const name = given.trim()
    if (name.length === 0) continue
    const tagReason = tagNameReason(name)
    if (tagReason !== undefined) return problem(line, "tags", reason("rowTagName", { name, inner: tagReason }), email)
    const key = tagNameKey(name)
    if (tagKeys.has(key)) continue
    tagKeys.add(key)
    tagNames.push(name)
  }
  if (tagNames.length > MAX_IMPORT_ROW_TAGS) return problem(line, "tags", reason("rowTooManyTags", { max: MAX_IMPORT_ROW_TAGS }), email)

  const metadata: Record<string, unknown> = {}
  for (const [key, index] of layout.metadata) {
    const cell = cellAt(cells, index)
    if (cell !== undefined) metadata[key] = metadataValue(cell)
  }
  return Either.right({
    line,
    email: EmailAddress.make(email),
    firstName,
    lastName,
    status,
    tagNames,
    metadata
  })
}

/** What an import does with the subscriber a row names. */
export type ImportChange =
  | { readonly _tag: "Create"; readonly subscriber: Subscriber }
  | { readonly _tag: "Update"; readonly subscriber: Subscriber; readonly changed: ReadonlyArray<string> }
  | { readonly _tag: "Unchanged"; readonly subscriber: Subscriber }

export interface ImportPlan {
  readonly change: ImportChange
  /**
   * The row asked (or, without a status column, implied) that a subscriber who left be active
   * again, and the import was not told to resubscribe: they keep the status they have.
   */
  readonly keptStatus: boolean
}

export interface ImportRowOptions {
  /** Unsubscribed, bounced and complained subscribers the file names become active again. */
  readonly resubscribe: boolean
}

/**
 * What becomes of the subscriber a row names: a new subscriber (`active` unless the row says
 * otherwise), or the one there is, with the row's names and status and its metadata keys set over
 * theirs. An import never brings back a subscriber who unsubscribed, bounced or complained unless
 * told to; nor does it move between those states where the transition table forbids it.
 */
export const planImportRow = (
  row: ImportRow,
  existing: Subscriber | undefined,
  options: ImportRowOptions,
  make: { readonly id: SubscriberId; readonly organizationId: OrganizationId; readonly at: Date }
): Either.Either<ImportPlan, RowProblem> => {
  if (existing === undefined) {
    const metadataIssue = metadataReason(row.metadata)
    if (metadataIssue !== undefined) return problem(row.line, "metadata", metadataIssue, row.email)
    // Every field was checked above, as the constructor would.
    const subscriber = new Subscriber({
      id: make.id,
      organizationId: make.organizationId,
      email: row.email,
      status: row.status ?? "active",
      metadata: row.metadata,
      firstName: row.firstName ?? null,
      lastName: row.lastName ?? null,
      createdAt: make.at,
      updatedAt: make.at
    }, true)
    return Either.right({ change: { _tag: "Create", subscriber }, keptStatus: false })
  }
  const wanted = row.status ?? (options.resubscribe ? "active" : existing.status)
  const keptStatus = wanted === "active" && existing.status !== "active" && !options.resubscribe
  const status = keptStatus ? existing.status : wanted
  const metadata = Object.keys(row.metadata).length === 0 ? existing.metadata : { ...existing.metadata, ...row.metadata }
  const metadataIssue = metadata === existing.metadata ? undefined : metadataReason(metadata)
  if (metadataIssue !== undefined) return problem(row.line, "metadata", reason("rowMetadataMerged", { inner: metadataIssue }), row.email)
  const applied = applySubscriberChanges(existing, {
    status,
    metadata,
    firstName: row.firstName,
    lastName: row.lastName
  }, "import", make.at)
  if (Either.isLeft(applied)) return problem(row.line, "status", applied.left.reason, row.email)
  const { changed, subscriber } = applied.right
  return Either.right({
    change: changed.length === 0 ? { _tag: "Unchanged", subscriber } : { _tag: "Update", subscriber, changed },
    keptStatus
  })
}

/** What an import did with the rows it read so far. */
export interface ImportCounts {
  /** Rows read after the header, blank ones left out. */
  readonly rows: number
  readonly created: number
  readonly updated: number
  readonly unchanged: number
  /** Rows reported as problems: nothing of theirs was written. */
  readonly failed: number
  /** Subscribers who unsubscribed, bounced or complained and kept that status (no resubscribe). */
  readonly keptStatus: number
}

export const noImportCounts: ImportCounts = { rows: 0, created: 0, updated: 0, unchanged: 0, failed: 0, keptStatus: 0 }

export const addImportCounts = (a: ImportCounts, b: ImportCounts): ImportCounts => ({
  rows: a.rows + b.rows,
  created: a.created + b.created,
  updated: a.updated + b.updated,
  unchanged: a.unchanged + b.unchanged,
  failed: a.failed + b.failed,
  keptStatus: a.keptStatus + b.keptStatus
})

/**
 * An import sent over HTTP, run by a worker: `receiving` while its file comes in, `queued` until
 * a worker takes it, `running`, then `completed` (every row read; some may be problems) or
 * `failed` (the file could not be read to its end: rows before the failure stay imported).
 */
export const ImportStatus = Schema.Literal("receiving", "queued", "running", "completed", "failed")
export type ImportStatus = typeof ImportStatus.Type

export interface ImportJobOptions extends ImportRowOptions {
  /** Tag names no tag has become tags (the uploader could write tags); otherwise such a row is a problem. */
  readonly createTags: boolean
  readonly encoding: string
}

/** Why an import stopped before the end of its file, and at which line if one is to blame. */
export interface ImportFailure {
  readonly line: number | null
  /** Why, as a catalogued reason. */
  readonly reason: Reason
  /** Why, in English. */
  readonly problem: string
}

/** An import's failure, worded in English from its reason. */
export const importFailure = (line: number | null, why: Reason): ImportFailure => ({ line, reason: why, problem: reasonText(why) })

export interface ImportJob {
  readonly id: ImportId
  readonly organizationId: OrganizationId
  readonly status: ImportStatus
  readonly fileName: string | null
  readonly byteSize: number
  readonly options: ImportJobOptions
  readonly counts: ImportCounts
  /** Records of the file (the header included) the import is done with: a worker that takes it over starts after them. */
  readonly recordsDone: number
  /** The first problems, in file order ({@link MAX_REPORTED_PROBLEMS} at most). */
  readonly problems: ReadonlyArray<RowProblem>
  /** Every problem, reported or only counted. */
  readonly problemCount: number
  readonly ignoredColumns: ReadonlyArray<string>
  /** Why a `failed` import stopped. */
  readonly failure: ImportFailure | null
  readonly createdAt: Date
  readonly startedAt: Date | null
  readonly finishedAt: Date | null
  readonly updatedAt: Date
}
