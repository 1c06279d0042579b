/** CSV files read with csv-parse. */
export { CsvParseReaderLive, MAX_RECORD_BYTES } from "./csv-parse-reader.js"
