/**
 * The JSON log: a request line written straight to the output is the line a log event of it
 * would have written, whatever its text holds.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Logger } from "effect"
import fc from "fast-check"
import { CurrentRequestId, RequestLine } from "../../adapters/observability/index.js"
import { logRecord, requestLineJson } from "../../apps/shared/logging.js"

/** Any text, with quotes, backslashes, control characters and halves of surrogate pairs. */
const anyText = fc.string({ unit: "binary", maxLength: 40 })
const orNull = <A>(arbitrary: fc.Arbitrary<A>) => fc.option(arbitrary, { nil: null })

const requestLines = fc.record({
  method: fc.constantFrom("GET", "POST", "DELETE"),
  path: anyText,
  status: fc.integer({ min: 100, max: 599 }),
  duration_ms: fc.nat({ max: 120_000 }),
  client_address: orNull(anyText),
  user_agent: orNull(anyText),
  organization_id: orNull(fc.uuid()),
  credential: orNull(anyText)
}).map((fields) => new RequestLine(fields))

/** The record a log event of `line` makes, at `date`, in a request with id `requestId`. */
const loggedRecord = (line: RequestLine, requestId: string, date: Date) => {
  const records: Array<Record<string, unknown>> = []
  const capture = Logger.make((options) => void records.push(logRecord({ ...options, date })))
  Effect.runSync(
    Effect.logInfo(line).pipe(
      Effect.locally(CurrentRequestId, requestId),
      Effect.provide(Logger.replace(Logger.defaultLogger, capture))
    )
  )
  return records[0]!
}

describe("a request line written straight to the JSON log", () => {
  it("is the text JSON.stringify writes of the line's log record", () => {
    fc.assert(
      fc.property(requestLines, anyText, fc.integer({ min: -8.64e15, max: 8.64e15 }), (line, requestId, ms) => {
        const date = new Date(ms)
        const record = loggedRecord(line, requestId, date)
        expect(record).toEqual({ time: date.toISOString(), level: "info", msg: line.toString(), request_id: requestId, ...line.fields })
        expect(requestLineJson(requestId, line, date)).toBe(JSON.stringify(record))
      }),
      { numRuns: 2000 }
    )
  })

  it("writes a number JSON cannot hold as null, as JSON.stringify does", () => {
    const line = new RequestLine({
      method: "GET",
      path: "/",
      status: 200,
      duration_ms: Number.NaN,
      client_address: null,
      user_agent: null,
      organization_id: null,
      credential: null
    })
    const date = new Date(0)
    expect(JSON.parse(requestLineJson("r", line, date))).toMatchObject({ duration_ms: null, time: "1970-01-01T00:00:00.000Z" })
    expect(requestLineJson("r", line, date)).toBe(JSON.stringify(loggedRecord(line, "r", date)))
  })
})
