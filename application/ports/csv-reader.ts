import type { ImportRefused } from "@roster/domain"
import { Context, type Stream } from "effect"

/** One record of a CSV file: the line it starts on (the first line is 1) and its cells as text. */
export interface CsvRecord {
  readonly line: number
  readonly cells: ReadonlyArray<string>
}

export interface CsvReadOptions {
  /**
   * The file's character encoding, as WHATWG names them (`utf-8`, `windows-1252`, `iso-8859-15`,
   * ...). A byte-order mark wins over it. Bytes that are not text in it come out as U+FFFD.
   */
  readonly encoding: string
}

/**
 * Reads CSV files as they stream in, with constant memory: records come out as the bytes arrive,
 * in chunks. A file whose structure breaks (a quote never closed, a record longer than a record
 * may be, bytes that are not text at all) ends the stream with `ImportRefused` at that line; the
 * records before it have come out.
 */
export class CsvReader extends Context.Tag("roster/CsvReader")<CsvReader, {
  /** Whether `encoding` names an encoding the reader knows. */
  readonly knowsEncoding: (encoding: string) => boolean
  readonly records: <E, R>(
    bytes: Stream.Stream<Uint8Array, E, R>,
    options: CsvReadOptions
  ) => Stream.Stream<CsvRecord, ImportRefused | E, R>
}>() {}
