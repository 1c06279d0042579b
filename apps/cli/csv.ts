import type { SubscriberView } from "@roster/application"
import { stringify } from "csv-stringify/sync"
import { Effect } from "effect"

/** Subscribers as CSV rows, as spreadsheets open them. */

/**
 * A cell a spreadsheet would read as a formula (it starts with `=`, `+`, `-`, `@`, a tab or a
 * carriage return) gets a leading apostrophe, so that it is shown as text and never run.
 */
export const neutralised = (cell: string): string => (/^[=+\-@\t\r]/.test(cell) ? `'${cell}` : cell)

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

export const subscriberRow = ({ subscriber, tags }: SubscriberView, metadataKeys: ReadonlyArray<string>): ReadonlyArray<string> =>
  [
    subscriber.email,
    subscriber.firstName ?? "",
    subscriber.lastName ?? "",
    subscriber.status,
    tags.map((t) => t.tag.name).join(", "),
    subscriber.createdAt.toISOString(),
    ...metadataKeys.map((key) => metadataCell(subscriber.metadata[key]))
  ].map(neutralised)

/** Rows as CSV text (RFC 4180 quoting), each line ending in `\r\n`. */
export const csvLines = (rows: ReadonlyArray<ReadonlyArray<string>>): string =>
  stringify(rows as Array<Array<string>>, { record_delimiter: "windows" })

/** Writes to stdout, waiting while its buffer is full: memory stays flat however much is written. */
export const writeOut = (text: string): Effect.Effect<void> =>
  Effect.async<void>((resume) => {
    if (process.stdout.write(text)) resume(Effect.void)
    else process.stdout.once("drain", () => resume(Effect.void))
  })
