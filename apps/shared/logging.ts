import { instantText } from "@roster/domain"
import { Cause, FiberRefs, HashMap, Inspectable, List, Logger } from "effect"
import type { makeBufferedOutput } from "../../adapters/node/index.js"
import { CurrentRequestId, RequestLine } from "../../adapters/observability/index.js"

/** A plain object logged beside a message (`Effect.logInfo("sent", { id })`) holds fields of the line. */
const isFields = (message: unknown): message is object =>
  typeof message === "object" && message !== null && Object.getPrototypeOf(message) === Object.prototype

/**
 * One log event as a flat record, in the shape log shippers expect: `time` (ISO 8601), `level`
 * (`info`, `warn`, ...), `msg`, then the request it belongs to (`request_id`), the fields of a
 * request line or of a plain object logged beside the message, the annotations, a failure's
 * `cause` and any log spans.
 */
export const logRecord = (options: Logger.Logger.Options<unknown>): Record<string, unknown> => {
  const record: Record<string, unknown> = {
    time: instantText(options.date),
    level: options.logLevel.label.toLowerCase()
  }
  const parts: Array<string> = []
  let fields: object | undefined
  for (const message of Array.isArray(options.message) ? options.message : [options.message]) {
    if (message instanceof RequestLine) {
      fields = message.fields
      parts.push(message.toString())
    } else if (isFields(message)) {
      fields = fields === undefined ? message : { ...fields, ...message }
    } else {
      parts.push(typeof message === "string" ? message : Inspectable.toStringUnknown(message))
    }
  }
  record.msg = parts.join(" ")
  const requestId = FiberRefs.getOrDefault(options.context, CurrentRequestId)
  if (requestId !== undefined) record.request_id = requestId
  if (fields !== undefined) Object.assign(record, fields)
  if (HashMap.size(options.annotations) > 0) {
    for (const [key, value] of HashMap.toEntries(options.annotations)) {
      if (!(key in record)) record[key] = value
    }
  }
  if (!Cause.isEmpty(options.cause)) record.cause = Cause.pretty(options.cause, { renderErrorCause: true })
  if (List.isCons(options.spans)) {
    const now = options.date.getTime()
    record.spans = Object.fromEntries(List.toArray(options.spans).map((span) => [span.label, now - span.startTime]))
  }
  return record
}

/** A record as JSON; one that JSON cannot hold as it is (a cycle, a bigint) is written the safe way. */
const jsonOf = (record: Record<string, unknown>): string => {
  try {
    return JSON.stringify(record)
  } catch {
    return Inspectable.stringifyCircular(record)
  }
}

/**
 * JSON lines on `output` (standard output, written together at the end of each burst of work
 * rather than one write per line).
 */
export const bufferedJsonLogger = (output: ReturnType<typeof makeBufferedOutput>) =>
  Logger.make((options) => output.writeLine(jsonOf(logRecord(options))))

/** A string JSON writes as it is, between quotes: no quote, backslash, control character or surrogate. */
const plainString = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/

/** A value of a request line as JSON writes it. */
const jsonValue = (value: string | number | null): string => {
  if (typeof value === "string") return plainString.test(value) ? `"${value}"` : JSON.stringify(value)
  return value === null || !Number.isFinite(value) ? "null" : String(value)
}

/**
 * A request line as `logRecord` has it, made without a log event: the line written once per
 * request, at `info`. Written out field by field (the fields' names are plain words), which
 * writes the same text as `JSON.stringify` of the record at a fraction of its cost.
 */
export const requestLineJson = (requestId: string, line: RequestLine, date: Date = new Date()): string => {
  let json = `{"time":"${instantText(date)}","level":"info","msg":${jsonValue(line.toString())},"request_id":${
    jsonValue(requestId)
  }`
  const { fields } = line
  for (const name in fields) json += `,"${name}":${jsonValue(fields[name as keyof typeof fields])}`
  return `${json}}`
}

/**
 * Effect's pretty logger for a terminal, told about request ids and request lines: they show as
 * annotations beside the line's text.
 */
export const prettyLogger = Logger.prettyLogger().pipe(
  Logger.mapInputOptions((options: Logger.Logger.Options<unknown>) => {
    const requestId = FiberRefs.getOrDefault(options.context, CurrentRequestId)
    const message = Array.isArray(options.message) && options.message.length === 1 ? options.message[0] : options.message
    const line = message instanceof RequestLine ? message : undefined
    if (requestId === undefined && line === undefined) return options
    let annotations = options.annotations
    if (requestId !== undefined) annotations = HashMap.set(annotations, "request_id", requestId)
    if (line !== undefined) {
      for (const [key, value] of Object.entries(line.fields)) annotations = HashMap.set(annotations, key, value)
    }
    return { ...options, message: line === undefined ? options.message : String(line), annotations }
  })
)
