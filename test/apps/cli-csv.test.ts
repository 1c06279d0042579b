import type { ExportedSubscriber } from "@roster/application"
import { neutralisedCell, SubscriberId } from "@roster/domain"
import { parse } from "csv-parse/sync"
import { stringify } from "csv-stringify/sync"
import { describe, expect, it } from "vitest"
import { csvCell, csvLines, makeSubscriberLines, subscriberColumns, subscriberRow } from "../../apps/cli/csv.js"

/**
 * The CLI's CSV text is csv-stringify's, cell for cell: what the export and the problem file
 * write is checked here against csv-stringify told to quote every line break (not only `\r\n`),
 * over cells that need quoting, neutralising, or neither; and csv-parse reads the cells back.
 */

/** What csv-stringify writes for the rows, each cell neutralised first. */
const reference = (rows: ReadonlyArray<ReadonlyArray<string>>) =>
  stringify(rows.map((row) => row.map(neutralisedCell)), { record_delimiter: "windows", quoted_match: /[\r\n]/ })

/** The cells of CSV text, as a CSV reader gets them back. */
const cellsOf = (text: string): Array<Array<string>> => parse(text, { relax_column_count: true })

const trickyCells = [
  "",
  "plain",
  "a,b",
  "say \"hi\"",
  "\"",
  "\"\"",
  "line one\nline two",
  "line one\r\nline two",
  "ends in a return\r",
  "\r",
  "\n",
  "=SUM(A1:A2)",
  "=HYPERLINK(\"http://evil.example\",\"x, y\")",
  "+1 555",
  "-",
  "-5",
  "@handle",
  "\tx",
  "\ttab, then comma",
  "\rreturn first",
  "tab\tinside",
  "'already quoted",
  "Zoë, Ångström",
  "日本語",
  "emoji 🎉, \"quoted\"",
  "\uFF1Dfullwidth equals",
  " leading space",
  "trailing space ",
  ";semicolon;",
  "\\backslash\\"
]

const subscriber = (fields: Partial<ExportedSubscriber>): ExportedSubscriber => ({
  id: SubscriberId.make("0190a000-0000-7000-8000-000000000001"),
  email: "ada@example.com",
  firstName: null,
  lastName: null,
  status: "active",
  tagNames: [],
  metadata: {},
  createdAt: "2026-01-31T09:15:00.000Z",
  ...fields
})

describe("the CLI's CSV text", () => {
  it("writes each tricky cell as csv-stringify does, alone and in rows", () => {
    for (const cell of trickyCells) {
      expect(csvCell(cell), JSON.stringify(cell)).toBe(reference([[cell]]).slice(0, -2))
      expect(csvLines([[cell]]), JSON.stringify(cell)).toBe(reference([[cell]]))
    }
    const rows = trickyCells.map((cell, i) => [cell, trickyCells[(i * 7) % trickyCells.length]!, "", cell])
    expect(csvLines(rows)).toBe(reference(rows))
    expect(csvLines([])).toBe("")
  })

  it("writes a page of subscribers as csv-stringify writes their rows, tags and metadata included", () => {
    const metadataKeys = ["city", "note", "plan", "seats", "tags"]
    const shared = ["Weekly", "News, daily"]
    const page = [
      subscriber({ tagNames: shared, metadata: { city: "Berlin", plan: "pro" } }),
      subscriber({ email: "bob@example.com", firstName: "=cmd", lastName: "O\"Brien", tagNames: shared }),
      subscriber({ status: "unsubscribed", tagNames: ["=SUM(1)"], createdAt: "2026-02-01T00:00:00.123Z" }),
      subscriber({ firstName: "", lastName: "", metadata: { seats: 3, tags: ["a", "b"], note: { nested: "x,y" }, city: null } }),
      ...trickyCells.map((cell, i) =>
        subscriber({
          email: `${i}@example.com`,
          firstName: cell,
          lastName: trickyCells[trickyCells.length - 1 - i]!,
          tagNames: cell === "" ? [] : [cell, "plain"],
          metadata: { note: cell, plan: i % 2 === 0 ? cell : i }
        })
      )
    ]
    const lines = makeSubscriberLines(metadataKeys)
    const expected = reference(page.map((s) => subscriberRow(s, metadataKeys)))
    // Written twice by one writer: what it reuses from the first page changes nothing in the second.
    expect(lines(page)).toBe(expected)
    expect(lines(page)).toBe(expected)
    expect(csvLines([subscriberColumns(metadataKeys)])).toBe(reference([subscriberColumns(metadataKeys)]))
    expect(lines([])).toBe("")
  })

  it("writes text a CSV reader parses back into the same cells, line breaks of every kind included", () => {
    for (const cell of trickyCells) {
      expect(cellsOf(csvLines([[cell, "next"]])), JSON.stringify(cell)).toEqual([[neutralisedCell(cell), "next"]])
    }
    const rows = trickyCells.map((cell, i) => [cell, trickyCells[(i * 7) % trickyCells.length]!, "", cell])
    expect(cellsOf(csvLines(rows))).toEqual(rows.map((row) => row.map(neutralisedCell)))

    const metadataKeys = ["note", "plan"]
    const page = trickyCells.map((cell, i) =>
      subscriber({
        email: `${i}@example.com`,
        firstName: cell,
        lastName: i % 2 === 0 ? null : cell,
        tagNames: cell === "" ? [] : [cell, "plain"],
        metadata: { note: cell, plan: i % 3 === 0 ? { nested: cell } : i }
      })
    )
    const text = csvLines([subscriberColumns(metadataKeys)]) + makeSubscriberLines(metadataKeys)(page)
    expect(cellsOf(text)).toEqual([
      [...subscriberColumns(metadataKeys)],
      ...page.map((s) => subscriberRow(s, metadataKeys).map(neutralisedCell))
    ])
  })
})
