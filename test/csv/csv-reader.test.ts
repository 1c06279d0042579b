import { describe, expect, it } from "@effect/vitest"
import { CsvReader, type CsvRecord } from "@roster/application"
import { ImportRefused } from "@roster/domain"
import { Chunk, Effect, Either, Stream } from "effect"
import { CsvParseReaderLive, MAX_RECORD_BYTES } from "../../adapters/csv/index.js"

/** The bytes in chunks of `size`, as a file or an upload brings them. */
const chunked = (bytes: Uint8Array, size = 7) =>
  Stream.fromIterable(Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size)))

const read = (bytes: Uint8Array, options: { readonly encoding?: string; readonly chunk?: number } = {}) =>
  Effect.flatMap(CsvReader, (csv) =>
    Effect.either(Stream.runCollect(csv.records(chunked(bytes, options.chunk), { encoding: options.encoding ?? "utf-8" }))).pipe(
      Effect.map(Either.map((records) => Chunk.toReadonlyArray(records)))
    )).pipe(Effect.provide(CsvParseReaderLive))

const records = (bytes: Uint8Array, options?: { readonly encoding?: string; readonly chunk?: number }) =>
  Effect.flatMap(read(bytes, options), Either.match({
    onLeft: (error) => Effect.dieMessage(`expected records, got ${String(error)}`),
    onRight: (all: ReadonlyArray<CsvRecord>) => Effect.succeed(all)
  }))

const refusal = (bytes: Uint8Array, options?: { readonly encoding?: string; readonly chunk?: number }) =>
  Effect.flatMap(read(bytes, options), Either.match({
    onLeft: (error) => {
      expect(error).toBeInstanceOf(ImportRefused)
      return Effect.succeed(error)
    },
    onRight: () => Effect.dieMessage("expected the file to be refused")
  }))

const utf8 = (text: string) => new TextEncoder().encode(text)

describe("reading CSV files", () => {
  it.effect("numbers records by the line they start on, across quoted line breaks, blank lines and CRLF", () =>
    Effect.gen(function*() {
      const all = yield* records(utf8('email,name\r\nada@example.com,"Ada\r\nLovelace"\r\n\r\ngrace@example.com,Grace\r\n'))
      expect(all).toEqual([
        { line: 1, cells: ["email", "name"] },
        { line: 2, cells: ["ada@example.com", "Ada\r\nLovelace"] },
        { line: 4, cells: [""] },
        { line: 5, cells: ["grace@example.com", "Grace"] }
      ])
    }))

  it.effect("drops a UTF-8 byte-order mark and keeps characters split between chunks whole", () =>
    Effect.gen(function*() {
      const all = yield* records(utf8("\uFEFFemail,name\nzoë@example.com,Zoë Ünal\n"), { chunk: 3 })
      expect(all).toEqual([{ line: 1, cells: ["email", "name"] }, { line: 2, cells: ["zoë@example.com", "Zoë Ünal"] }])
    }))

  it.effect("reads UTF-16 by its byte-order mark, and other encodings when named", () =>
    Effect.gen(function*() {
      const text = "email;name\nzoe@example.com;Zoë\n"
      const utf16 = new Uint8Array([0xff, 0xfe, ...new Uint8Array(Buffer.from(text, "utf16le"))])
      expect((yield* records(utf16))[1]).toEqual({ line: 2, cells: ["zoe@example.com", "Zoë"] })
      const latin1 = new Uint8Array(Buffer.from(text, "latin1"))
      expect((yield* records(latin1, { encoding: "windows-1252" }))[1]!.cells).toEqual(["zoe@example.com", "Zoë"])
      // Read as UTF-8, the lone Latin-1 byte is no character: it comes out as U+FFFD, for the import to report.
      expect((yield* records(latin1))[1]!.cells[1]).toBe("Zo\uFFFD")
    }))

  it.effect("tells the delimiter from the header: commas, semicolons or tabs", () =>
    Effect.gen(function*() {
      expect((yield* records(utf8("email;name\na@example.com;Ann, the first\n")))[1]!.cells).toEqual(["a@example.com", "Ann, the first"])
      expect((yield* records(utf8("email\tname\na@example.com\tAnn; Bob\n")))[1]!.cells).toEqual(["a@example.com", "Ann; Bob"])
    }))

  it.effect("takes stray quotes inside cells as text, as spreadsheets write them", () =>
    Effect.gen(function*() {
      expect((yield* records(utf8('email,name\na@example.com,Ann "the first" Lee\n')))[1]!.cells).toEqual(["a@example.com", 'Ann "the first" Lee'])
    }))

  it.effect("stops at a quote that is never closed, naming the line it opens on, after the records before it", () =>
    Effect.gen(function*() {
      const csv = yield* CsvReader
      const seen: Array<number> = []
      const result = yield* Effect.either(Stream.runForEach(
        csv.records(chunked(utf8('email,name\na@example.com,Ann\nb@example.com,"Bob\nc@example.com,Cy\n')), { encoding: "utf-8" }),
        (record) => Effect.sync(() => seen.push(record.line))
      ))
      expect(seen).toEqual([1, 2])
      expect(Either.isLeft(result) && result.left).toMatchObject({ line: 3, problem: "a quoted cell starts on this line and is never closed" })
    }).pipe(Effect.provide(CsvParseReaderLive)))

  it.effect("stops at a record longer than a record may be, without holding the rest of it", () =>
    Effect.gen(function*() {
      const huge = Stream.concat(
        Stream.make(utf8("email,name\na@example.com,")),
        Stream.repeatValue(new Uint8Array(64 * 1024).fill(0x7a)).pipe(Stream.take(Math.ceil((4 * MAX_RECORD_BYTES) / (64 * 1024))))
      )
      const result = yield* Effect.either(Stream.runCollect((yield* CsvReader).records(huge, { encoding: "utf-8" })))
      expect(Either.isLeft(result) && result.left).toMatchObject({ line: 2 })
      expect(Either.isLeft(result) && result.left.problem).toContain(`longer than ${MAX_RECORD_BYTES} bytes`)
    }).pipe(Effect.provide(CsvParseReaderLive)))

  it.effect("refuses a file that is not text", () =>
    Effect.gen(function*() {
      const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52])
      const refused = yield* refusal(png)
      expect(refused.problem).toContain("not text")
    }))

  it.effect("reads an empty file as no records, and knows the encodings it can read", () =>
    Effect.gen(function*() {
      expect(yield* records(new Uint8Array(0))).toEqual([])
      const csv = yield* CsvReader
      expect(["utf-8", "UTF-8", "windows-1252", "iso-8859-15", "utf-16le"].every(csv.knowsEncoding)).toBe(true)
      expect(csv.knowsEncoding("klingon")).toBe(false)
    }).pipe(Effect.provide(CsvParseReaderLive)))
})
