import type { ExportedSubscriber } from "@roster/application"
import { neutralisedCell } from "@roster/domain"
import { stringify } from "csv-stringify/sync"
import { Data, Effect } from "effect"

/** Subscribers as CSV rows, as spreadsheets open them. */

export const subscriberColumns = (metadataKeys: ReadonlyArray<string>): ReadonlyArray<string> => [
  "email",
  "first_name",
  "last_name",
  "status",
  "tags",
  "created_at",
  ...metadataKeys.map((key) => `metadata.${key}`)
]

/** A metadata value as text: strings as they are, anything else as JSON; empty when absent. */
const metadataCell = (value: unknown): string =>
  value === undefined || value === null ? "" : typeof value === "string" ? value : JSON.stringify(value)

export const subscriberRow = (subscriber: ExportedSubscriber, metadataKeys: ReadonlyArray<string>): ReadonlyArray<string> =>
  [
    subscriber.email,
    subscriber.firstName ?? "",
    subscriber.lastName ?? "",
    subscriber.status,
    subscriber.tagNames.join(", "),
    subscriber.createdAt.toISOString(),
    ...metadataKeys.map((key) => metadataCell(subscriber.metadata[key]))
  ]

/**
 * Rows as CSV text (RFC 4180 quoting), each line ending in `\r\n`, every cell a spreadsheet would
 * run as a formula neutralised: what the CLI writes for a spreadsheet (an export, a problem file)
 * goes through here.
 */
export const csvLines = (rows: ReadonlyArray<ReadonlyArray<string>>): string =>
  stringify(rows.map((row) => row.map(neutralisedCell)), { record_delimiter: "windows" })

/** stdout was closed before everything was written (a reader such as `head` stopped reading). */
export class OutputClosed extends Data.TaggedError("OutputClosed")<{ readonly message: string }> {}

/** Why stdout failed, once it did; and the write waiting for it to drain, if one is. */
let failure: Error | undefined
let waiting: (() => void) | undefined
let watching = false

const closed = (error: Error) => new OutputClosed({ message: `stdout was closed before the end (${error.message})` })

/**
 * Writes to stdout, waiting while its buffer is full: memory stays flat however much is written.
 * Once stdout is closed (a reader such as `head` stopped reading) every write fails, so that
 * nothing more is read for it.
 */
export const writeOut = (text: string): Effect.Effect<void, OutputClosed> =>
  Effect.async<void, OutputClosed>((resume) => {
    if (!watching) {
      watching = true
      process.stdout.on("error", (error) => {
        failure = error
        waiting?.()
      })
    }
    if (failure !== undefined) return resume(Effect.fail(closed(failure)))
    if (process.stdout.write(text)) return resume(Effect.void)
    const done = () => {
      waiting = undefined
      process.stdout.off("drain", done)
      resume(failure === undefined ? Effect.void : Effect.fail(closed(failure)))
    }
    waiting = done
    process.stdout.once("drain", done)
  })
