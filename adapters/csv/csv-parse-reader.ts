import { CsvReader, type CsvRecord } from "@roster/application"
import { ImportRefused, reason } from "@roster/domain"
import { CsvError, Parser } from "csv-parse"
import { Layer, Stream } from "effect"

/** A record longer than this (in bytes) ends the read: a quote left open, or a file that is not CSV. */
export const MAX_RECORD_BYTES = 1024 * 1024

/** The first line is looked for this far to tell the delimiter. */
const FIRST_LINE_BYTES = MAX_RECORD_BYTES

/** The file's start is looked at this far for NUL bytes, which text never holds. */
const BINARY_SNIFF_BYTES = 8 * 1024

const delimiters = [",", ";", "\t"] as const

/**
 * The delimiter the first line uses most: a comma, or the semicolon that spreadsheets write where
 * the comma is the decimal mark, or a tab.
 */
const delimiterOf = (firstLine: string): string => {
  let best: string = ","
  let most = 0
  for (const candidate of delimiters) {
    const count = firstLine.split(candidate).length - 1
    if (count > most) {
      best = candidate
      most = count
    }
  }
  return best
}

const startsWith = (bytes: Uint8Array, prefix: ReadonlyArray<number>) => prefix.every((byte, i) => bytes[i] === byte)

const UTF8_BOM = [0xef, 0xbb, 0xbf]
const UTF16LE_BOM = [0xff, 0xfe]
const UTF16BE_BOM = [0xfe, 0xff]

const knowsEncoding = (encoding: string): boolean => {
  try {
    new TextDecoder(encoding)
    return true
  } catch {
    return false
  }
}

const isUtf8 = (encoding: string) => {
  const name = new TextDecoder(encoding).encoding
  return name === "utf-8"
}

/**
 * What turns the file's bytes into UTF-8 for the parser: nothing for UTF-8 (the parser reads
 * it, a character split between chunks included), a streaming decoder otherwise. A byte-order
 * mark picks the encoding.
 */
const transcoderFor = (firstBytes: Uint8Array, encoding: string): ((bytes: Uint8Array | undefined) => Buffer) => {
  const named = startsWith(firstBytes, UTF8_BOM)
    ? "utf-8"
    : startsWith(firstBytes, UTF16LE_BOM)
    ? "utf-16le"
    : startsWith(firstBytes, UTF16BE_BOM)
    ? "utf-16be"
    : encoding
  if (isUtf8(named)) {
    return (bytes) => bytes === undefined ? Buffer.alloc(0) : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  }
  const decoder = new TextDecoder(named)
  return (bytes) => Buffer.from(bytes === undefined ? decoder.decode() : decoder.decode(bytes, { stream: true }), "utf8")
}

const lineBreak = /\r\n|\r|\n/g

/** The line breaks inside a record's quoted cells (CRLF as one). */
const lineBreaksIn = (cells: ReadonlyArray<string>): number => {
  let breaks = 0
  for (const cell of cells) {
    if (cell.includes("\n") || cell.includes("\r")) breaks += cell.match(lineBreak)?.length ?? 0
  }
  return breaks
}

const messageOf = (error: CsvError, line: number): ImportRefused => {
  switch (error.code) {
    case "CSV_QUOTE_NOT_CLOSED":
      return new ImportRefused({ line, reason: reason("quoteNotClosed") })
    case "CSV_MAX_RECORD_SIZE":
      return new ImportRefused({
        line,
        reason: reason("rowTooLong", { max: MAX_RECORD_BYTES })
      })
    default:
      return new ImportRefused({ line, reason: reason("notCsv", { detail: error.message }) })
  }
}

/**
 * csv-parse's synchronous core: what its Node stream and its `sync` function both wrap, kept on
 * each `Parser` as `api` (version 7). It parses the bytes it is given and pushes each record.
 */
interface ParserCore {
  readonly parse: (
    bytes: Buffer | undefined,
    end: boolean,
    push: (record: Array<string>) => void,
    close: () => void
  ) => CsvError | undefined
}

const coreOf = (parser: Parser): ParserCore => {
  const core = (parser as unknown as { readonly api?: ParserCore }).api
  if (core === undefined || typeof core.parse !== "function") throw new Error("csv-parse no longer exposes its parser's core")
  return core
}

/**
 * Reads CSV with csv-parse, driven a chunk at a time through the parser's synchronous core (the
 * one its Node stream wraps), so that a chunk's records come out together, as one chunk, with
 * no stream machinery per record. Lines are counted as files number them: a record starts on the
 * line after the one the record before it ended on.
 */
const records = <E, R>(
  bytes: Stream.Stream<Uint8Array, E, R>,
  options: { readonly encoding: string }
): Stream.Stream<CsvRecord, ImportRefused | E, R> =>
  Stream.suspend(() => {
    let parser: ParserCore | undefined
    let transcode: ((bytes: Uint8Array | undefined) => Buffer) | undefined
    /** Bytes held until the first line is whole and the start of the file can be told from binary. */
    let held: Array<Buffer> = []
    let heldBytes = 0
    /** The line the next record starts on: each record ends with one line break, and its quoted cells may hold more. */
    let nextLine = 1

    const start = (first: Buffer) => {
      if (first.subarray(0, BINARY_SNIFF_BYTES).includes(0)) {
        throw new ImportRefused({
          line: null,
          reason: reason("fileNotText")
        })
      }
      const text = first.toString("utf8")
      const newline = text.search(/[\r\n]/)
      return coreOf(new Parser({
        bom: true,
        delimiter: delimiterOf(newline < 0 ? text : text.slice(0, newline)),
        record_delimiter: ["\r\n", "\n", "\r"],
        relax_quotes: true,
        relax_column_count: true,
        skip_empty_lines: false,
        max_record_size: MAX_RECORD_BYTES
      }))
    }

    /** The records the bytes complete, and what stopped the reading, if something did (after those records). */
    const parse = (utf8: Buffer | undefined, end: boolean): Stream.Stream<CsvRecord, ImportRefused> => {
      const out: Array<CsvRecord> = []
      try {
        if (parser === undefined) {
          if (utf8 !== undefined) {
            held.push(utf8)
            heldBytes += utf8.byteLength
          }
          const joined = Buffer.concat(held, heldBytes)
          const lineKnown = joined.includes(10) || joined.includes(13)
          if (!end && heldBytes < FIRST_LINE_BYTES && (!lineKnown || heldBytes < BINARY_SNIFF_BYTES)) return Stream.empty
          held = []
          heldBytes = 0
          if (joined.byteLength === 0) return Stream.empty
          parser = start(joined)
          utf8 = joined
        }
        const push = (cells: Array<string>) => {
          out.push({ line: nextLine, cells })
          nextLine += 1 + lineBreaksIn(cells)
        }
        const error = parser.parse(utf8, end, push, () => {})
        if (error !== undefined) throw error instanceof CsvError ? messageOf(error, nextLine) : error
        return Stream.fromIterable(out)
      } catch (error) {
        if (!(error instanceof ImportRefused)) throw error
        return Stream.concat(Stream.fromIterable(out), Stream.fail(error))
      }
    }

    return bytes.pipe(
      Stream.flatMap((chunk) =>
        Stream.suspend(() => {
          transcode ??= transcoderFor(chunk, options.encoding)
          return parse(transcode(chunk), false)
        })
      ),
      Stream.concat(Stream.suspend(() => parse(transcode === undefined ? undefined : transcode(undefined), true)))
    )
  })

export const CsvParseReaderLive = Layer.succeed(CsvReader, CsvReader.of({ knowsEncoding, records }))
