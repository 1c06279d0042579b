import { neutralisedCell } from "@roster/domain"
import type { ExportedSubscriber } from "./ports/subscriber-repository.js"

/**
 * Subscribers as CSV rows, as spreadsheets open them: RFC 4180 quoting, each line ending in
 * `\r\n`, every cell a spreadsheet would run as a formula neutralised. The text is what
 * csv-stringify writes with `record_delimiter: "windows"` and `quoted_match: /[\r\n]/`
 * (test/apps/cli-csv.test.ts holds the two side by side), built here without its per-cell
 * machinery: an export writes millions of cells.
 */

export const subscriberColumns = (metadataKeys: ReadonlyArray<string>): ReadonlyArray<string> => [
  "email",
  "first_name",
  "last_name",
  "status",
  "tags",
  "created_at",
  ...metadataKeys.map((key) => `metadata.${key}`)
]

/**
 * What makes a cell need quotes: a quote, the delimiter, or a line break of any kind (a lone `\n`
 * or `\r` as well as `\r\n`), which a reader would otherwise take for the end of the row.
 */
const needsQuotes = /[",\r\n]/
const quoteMark = /"/g

/** One cell as written: neutralised, then quoted (its quotes doubled) when it must be. */
export const csvCell = (cell: string): string => {
  const text = neutralisedCell(cell)
  return needsQuotes.test(text) ? `"${text.replace(quoteMark, '""')}"` : text
}

/** Rows as CSV text, each line ending in `\r\n`: what the CLI writes for a spreadsheet (an export, a problem file). */
export const csvLines = (rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  let text = ""
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) text += i === 0 ? csvCell(row[i]!) : `,${csvCell(row[i]!)}`
    text += "\r\n"
  }
  return text
}

/** A metadata value as text: strings as they are, anything else as JSON; empty when absent. */
const metadataCell = (value: unknown): string =>
  value === undefined || value === null ? "" : typeof value === "string" ? value : JSON.stringify(value)

/** A subscriber's cells, in the order of `subscriberColumns`, before they are written. */
export const subscriberRow = (subscriber: ExportedSubscriber, metadataKeys: ReadonlyArray<string>): ReadonlyArray<string> =>
  [
    subscriber.email,
    subscriber.firstName ?? "",
    subscriber.lastName ?? "",
    subscriber.status,
    subscriber.tagNames.join(", "),
    subscriber.createdAt,
    ...metadataKeys.map((key) => metadataCell(subscriber.metadata[key]))
  ]

/**
 * Writes subscribers as CSV lines, the same text as `csvLines` of their `subscriberRow`s, a page at
 * a time. Cells that repeat from row to row (a status, a creation time shared by an import's rows,
 * a list of tags that subscribers share) are written once and then reused.
 */
export const makeSubscriberLines = (metadataKeys: ReadonlyArray<string>) => {
  const statuses = new Map<string, string>()
  // Keyed by the list itself: a store hands the same list to subscribers with the same tags.
  const tagCells = new WeakMap<ReadonlyArray<string>, string>()
  let lastCreatedAt = ""
  let lastCreatedAtCell = ""
  const tagsCell = (names: ReadonlyArray<string>) => {
    if (names.length === 0) return ""
    let cell = tagCells.get(names)
    if (cell === undefined) {
      cell = csvCell(names.join(", "))
      tagCells.set(names, cell)
    }
    return cell
  }
  return (page: ReadonlyArray<ExportedSubscriber>): string => {
    let text = ""
    for (const subscriber of page) {
      let status = statuses.get(subscriber.status)
      if (status === undefined) {
        status = csvCell(subscriber.status)
        statuses.set(subscriber.status, status)
      }
      if (subscriber.createdAt !== lastCreatedAt) {
        lastCreatedAt = subscriber.createdAt
        lastCreatedAtCell = csvCell(lastCreatedAt)
      }
      text += csvCell(subscriber.email) + "," +
        (subscriber.firstName === null ? "" : csvCell(subscriber.firstName)) + "," +
        (subscriber.lastName === null ? "" : csvCell(subscriber.lastName)) + "," +
        status + "," + tagsCell(subscriber.tagNames) + "," + lastCreatedAtCell
      const metadata = subscriber.metadata
      for (const key of metadataKeys) {
        const value = metadata[key]
        text += value === undefined || value === null ? "," : "," + csvCell(typeof value === "string" ? value : JSON.stringify(value))
      }
      text += "\r\n"
    }
    return text
  }
}
