import { createReadStream } from "node:fs"

/**
 * How many records a CSV file holds, counted in one quick pass before it is imported:
 * what an import's progress is a part of. Records end at a line break outside quoted cells
 * (`\r\n`, `\n` or `\r`, as the import reads them), a quote opens a quoted cell only at a cell's
 * start (after `,`, `;` or a tab, the delimiters the import knows), and `""` inside one is a
 * quote. Empty lines are records too, as the import counts them. Only the structure is read: no
 * cell is decoded, and the text of cells is passed over a byte or a quoted cell at a time.
 */

const QUOTE = 0x22
const LF = 0x0a
const CR = 0x0d
const COMMA = 0x2c
const SEMICOLON = 0x3b
const TAB = 0x09

/** The bytes that end a record, open a quoted cell or start a cell. */
const special = new Uint8Array(256)
for (const byte of [QUOTE, LF, CR, COMMA, SEMICOLON, TAB]) special[byte] = 1

/** A counter fed the file's bytes as UTF-8 (or any encoding that writes these characters as single bytes). */
export const makeRecordCounter = () => {
  let records = 0
  let inQuotes = false
  /** Inside quotes, the byte before was a quote: the cell's end, or the first of `""`. */
  let quoteBefore = false
  let cellStart = true
  let afterCr = false
  /** The record being read has begun (the file may end without a line break). */
  let begun = false
  return {
    feed: (bytes: Uint8Array): void => {
      for (let i = 0; i < bytes.length; i++) {
        const byte = bytes[i]!
        if (inQuotes) {
          if (!quoteBefore) {
            if (byte !== QUOTE) {
              // A quoted cell's text runs to the next quote.
              const quote = bytes.indexOf(QUOTE, i + 1)
              if (quote < 0) break
              i = quote
            }
            quoteBefore = true
            continue
          }
          quoteBefore = false
          if (byte === QUOTE) continue
          inQuotes = false
        }
        if (afterCr) {
          afterCr = false
          if (byte === LF) continue
        }
        if (special[byte] === 0) {
          // Most bytes are a cell's text.
          cellStart = false
          begun = true
          continue
        }
        if (byte === LF || byte === CR) {
          records++
          afterCr = byte === CR
          cellStart = true
          begun = false
          continue
        }
        begun = true
        if (byte === QUOTE && cellStart) {
          inQuotes = true
          cellStart = false
        } else {
          cellStart = byte === COMMA || byte === SEMICOLON || byte === TAB
        }
      }
    },
    /** The records of what was fed, the last one counted whether or not a line break ends it. */
    records: (): number => records + (begun || inQuotes ? 1 : 0)
  }
}

const BOMS: ReadonlyArray<readonly [ReadonlyArray<number>, string]> = [
  [[0xef, 0xbb, 0xbf], "utf-8"],
  [[0xff, 0xfe], "utf-16le"],
  [[0xfe, 0xff], "utf-16be"]
]

/** The file's encoding as the import picks it: a byte-order mark wins over the one named. */
const encodingOf = (first: Uint8Array, named: string): string => {
  const bom = BOMS.find(([bytes]) => bytes.every((byte, i) => first[i] === byte))
  return new TextDecoder(bom === undefined ? named : bom[1]).encoding
}

/** The records of the file at `path` (the header included); it fails as reading the file fails, or with an unknown encoding. */
export const countRecords = async (path: string, encoding: string, signal?: AbortSignal): Promise<number> => {
  const counter = makeRecordCounter()
  let decoder: InstanceType<typeof TextDecoder> | undefined
  let utf8: boolean | undefined
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024, signal }) as AsyncIterable<Buffer>) {
    if (utf8 === undefined) {
      const named = encodingOf(chunk, encoding)
      utf8 = named === "utf-8"
      if (!utf8) decoder = new TextDecoder(named)
    }
    counter.feed(decoder === undefined ? chunk : Buffer.from(decoder.decode(chunk, { stream: true }), "utf8"))
  }
  if (decoder !== undefined) counter.feed(Buffer.from(decoder.decode(), "utf8"))
  return counter.records()
}
