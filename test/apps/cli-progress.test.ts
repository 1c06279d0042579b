import { parse } from "csv-parse/sync"
import { describe, expect, it } from "vitest"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { stripVTControlCharacters } from "node:util"
import { duration, makeProgress, plainEveryMs, type ProgressStream } from "../../apps/cli/progress.js"
import { countRecords, makeRecordCounter } from "../../apps/cli/record-count.js"
import { run } from "../support/processes.js"

/**
 * The CLI's progress on stderr: a bar on a terminal (cli-progress), plain lines off one, both
 * saying how many of how many are done, how many a second and how long the rest should take;
 * and the quick count of a file's records that an import's bar is a part of.
 */

/** A stand-in for stderr that keeps what is written, a terminal or not. */
const fakeStream = (isTTY: boolean) => {
  const written: Array<string> = []
  const stream: ProgressStream = {
    isTTY,
    columns: 200,
    write: ((chunk: string | Uint8Array) => {
      written.push(String(chunk))
      return true
    }) as ProgressStream["write"],
    cursorTo: (() => true) as NodeJS.WriteStream["cursorTo"],
    clearLine: (() => true) as NodeJS.WriteStream["clearLine"],
    moveCursor: (() => true) as NodeJS.WriteStream["moveCursor"]
  }
  return { stream, text: () => stripVTControlCharacters(written.join("")), raw: () => written.join("") }
}

/** A clock the test moves. */
const fakeClock = () => {
  let ms = 1_000_000
  return { now: () => ms, advance: (by: number) => void (ms += by) }
}

const escapeCodes = /\u001b\[/

describe("progress on a terminal", () => {
  it("draws a bar of rows done of the rows there are, with the rate, the time left and the problems", () => {
    const clock = fakeClock()
    const { stream, text } = fakeStream(true)
    const progress = makeProgress({ doing: "importing", unit: "rows", problems: true, stream, now: clock.now })
    progress.setTotal(60_000)
    clock.advance(1000)
    progress.update(2000, 3)
    progress.stop()
    expect(text()).toContain("importing |")
    expect(text()).toContain("| 3% | 2,000 of 60,000 rows | 2,000 rows/s | ETA 29s | 3 problems")
  })

  it("shows no percentage and no time left until the total is known, and never more than 100 %", () => {
    const clock = fakeClock()
    const unknown = fakeStream(true)
    const counting = makeProgress({ doing: "importing", unit: "rows", problems: true, stream: unknown.stream, now: clock.now })
    clock.advance(2000)
    counting.update(500, 0)
    counting.stop()
    expect(unknown.text()).toContain("| ? | 500 rows | 250 rows/s | ETA ? | 0 problems")
    expect(unknown.text()).toContain("\u2591".repeat(40))

    const grown = fakeStream(true)
    const exporting = makeProgress({ doing: "exporting", unit: "subscribers", stream: grown.stream, now: clock.now })
    exporting.setTotal(1000)
    clock.advance(1000)
    exporting.update(1200)
    exporting.stop()
    expect(grown.text()).toContain("| 100% | 1,200 of 1,200 subscribers | 1,200 subscribers/s | ETA 0s")
    expect(grown.text()).not.toContain("problems")
  })
})

describe("progress off a terminal", () => {
  it("writes a plain line at most every interval, without escape codes", () => {
    const clock = fakeClock()
    const { stream, raw } = fakeStream(false)
    const progress = makeProgress({ doing: "importing", unit: "rows", problems: true, stream, now: clock.now, everyMs: 5000 })
    progress.setTotal(60_000)
    clock.advance(1000)
    progress.update(2000, 0)
    expect(raw()).toBe("")
    clock.advance(4000)
    progress.update(10_000, 1)
    clock.advance(1000)
    progress.update(12_000, 1)
    progress.stop()
    expect(raw()).toBe("roster: importing: 16% (10,000 of 60,000 rows), 2,000 rows/s, ETA 25s, 1 problems\n")
    expect(raw()).not.toMatch(escapeCodes)
  })

  it("takes its interval from ROSTER_PROGRESS_SECONDS, and refuses one that is not a number of seconds", () => {
    expect(plainEveryMs({})).toBe(5000)
    expect(plainEveryMs({ ROSTER_PROGRESS_SECONDS: "0.25" })).toBe(250)
    expect(plainEveryMs({ ROSTER_PROGRESS_SECONDS: "0" })).toBe(0)
    for (const bad of ["soon", "-1", "Infinity"]) {
      expect(String(plainEveryMs({ ROSTER_PROGRESS_SECONDS: bad })))
        .toBe(`Error: ROSTER_PROGRESS_SECONDS: expected a number of seconds, 0 or more; got '${bad}'`)
    }
  })

  it("tells the time left as people read it", () => {
    expect([0, 0.2, 59, 60, 65, 3599, 3600, 3725].map(duration)).toEqual(["0s", "1s", "59s", "1m 00s", "1m 05s", "59m 59s", "1h 00m", "1h 02m"])
  })
})

/** Records as the import's reader takes them from the text (csv-parse, with its options). */
const parsedRecords = (text: string, delimiter = ",") =>
  (parse(text, {
    bom: true,
    delimiter,
    record_delimiter: ["\r\n", "\n", "\r"],
    relax_quotes: true,
    relax_column_count: true,
    skip_empty_lines: false
  }) as Array<unknown>).length

const counted = (text: string, chunkBytes = 3) => {
  const counter = makeRecordCounter()
  const bytes = Buffer.from(text, "utf8")
  // Fed in small chunks: a CRLF, a `""` or a character split between chunks counts the same.
  for (let i = 0; i < bytes.length; i += chunkBytes) counter.feed(bytes.subarray(i, i + chunkBytes))
  return counter.records()
}

describe("counting a file's records", () => {
  const files: ReadonlyArray<readonly [string, string]> = [
    ["empty", ""],
    ["a header only, no line break", "email,first_name"],
    ["LF", "email,name\na@x.example,Ada\nb@x.example,Bob\n"],
    ["CRLF, no final line break", "email,name\r\na@x.example,Ada\r\nb@x.example,Bob"],
    ["CR", "email,name\ra@x.example,Ada\rb@x.example,Bob\r"],
    ["empty lines", "email,name\n\na@x.example,Ada\n\n\nb@x.example,Bob\n"],
    ["quoted line breaks and commas", "email,note\na@x.example,\"line one\r\nline two\"\nb@x.example,\"x,\ny\"\n"],
    ["doubled quotes", "email,note\na@x.example,\"say \"\"hi\"\"\nthere\"\nb@x.example,\"\"\"\"\n"],
    ["a quote inside an unquoted cell", "email,note\na@x.example,5\" screen\nb@x.example,ok\n"],
    ["semicolons", "email;note\na@x.example;\"a;\nb\"\nb@x.example;x\n"],
    ["a byte-order mark and unicode", "\uFEFFemail,name\nzoe@x.example,\"Zoë\nÅngström 🎉\"\n"]
  ]
  it("counts as many records as the import's reader finds, however the bytes are split", () => {
    for (const [name, text] of files) {
      const expected = parsedRecords(text, name === "semicolons" ? ";" : ",")
      for (const chunk of [1, 2, 3, 7, 1024]) expect(counted(text, chunk), `${name}, chunks of ${chunk}`).toBe(expected)
    }
  })

  it("counts a file in the encoding the import reads it in, a byte-order mark first", async () => {
    const dir = mkdtempSync(join(tmpdir(), "roster-count-"))
    try {
      const text = "email,note\r\na@x.example,\"two\nlines\"\r\nb@x.example,Zoë\r\n"
      const utf16 = join(dir, "utf16.csv")
      writeFileSync(utf16, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]))
      expect(await countRecords(utf16, "utf-8")).toBe(3)
      const latin1 = join(dir, "latin1.csv")
      writeFileSync(latin1, Buffer.from(text, "latin1"))
      expect(await countRecords(latin1, "windows-1252")).toBe(3)
      await expect(countRecords(join(dir, "missing.csv"), "utf-8")).rejects.toThrow(/ENOENT/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe("the CLI's progress off a terminal, on the embedded database", () => {
  it("reports committed rows of the file's rows while importing, and subscribers written while exporting", async () => {
    const dir = mkdtempSync(join(tmpdir(), "roster-progress-"))
    try {
      const env = { DATA_DIR: join(dir, "data"), ROSTER_PROGRESS_SECONDS: "0" }
      const made = await run("cli", ["org", "create", "--name", "Progress", "--slug", "progress", "--tier", "enterprise"], env)
      expect(made.code, made.stderr).toBe(0)
      const file = join(dir, "subscribers.csv")
      const rows = 3000
      writeFileSync(file, "email,first_name,tags,metadata.note\n" +
        Array.from({ length: rows }, (_, i) => `r${i}@example.com,R${i},"Weekly, News","line\nbreak"\n`).join(""))

      const imported = await run("cli", ["subscribers", "import", file, "--org", "progress"], env)
      expect(imported.code, imported.stderr).toBe(0)
      expect(imported.stderr).not.toMatch(escapeCodes)
      const importLines = imported.stderr.split("\n").filter((line) => line.startsWith("roster: importing: "))
      expect(importLines.length).toBeGreaterThanOrEqual(1)
      for (const line of importLines) {
        expect(line).toMatch(/^roster: importing: (\d+%|\?) \([\d,]+( of 3,000)? rows\), [\d,]+ rows\/s, ETA (\?|\d+[smh]( \d+[sm])?), 0 problems$/)
      }
      expect(importLines.at(-1)).toMatch(/^roster: importing: 100% \(3,000 of 3,000 rows\), [\d,]+ rows\/s, ETA 0s, 0 problems$/)
      expect(imported.stderr).toContain("roster: imported 3000 rows: 3000 created")

      const exported = await run("cli", ["subscribers", "export", "--org", "progress"], env)
      expect(exported.code, exported.stderr).toBe(0)
      expect(exported.stderr).not.toMatch(escapeCodes)
      expect(exported.stderr).toMatch(
        /^roster: exporting: 100% \(3,000 of 3,000 subscribers\), [\d,]+ subscribers\/s, ETA 0s\nroster: exported 3000 subscribers\n$/
      )
      expect(parse(exported.stdout)).toHaveLength(rows + 1)

      const refused = await run("cli", ["subscribers", "export", "--org", "progress"], { ...env, ROSTER_PROGRESS_SECONDS: "often" })
      expect(refused.code).toBe(1)
      expect(refused.stdout).toBe("")
      expect(refused.stderr).toBe("roster: ROSTER_PROGRESS_SECONDS: expected a number of seconds, 0 or more; got 'often'\n")
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 180_000)
})
