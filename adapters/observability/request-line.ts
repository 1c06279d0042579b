import { Context, Effect, FiberRef } from "effect"

/**
 * The id of the request the current fiber serves, which every log line written while serving it
 * carries. A FiberRef of its own rather than a log annotation: annotations are a map that is
 * hashed and compared on every change, which is work on every request.
 */
export const CurrentRequestId: FiberRef.FiberRef<string | undefined> = FiberRef.unsafeMake<string | undefined>(undefined)

/**
 * The one line logged per request. Its fields are the line's own (not log annotations); a JSON
 * log writes them at the top level, beside `msg`.
 */
export class RequestLine {
  constructor(
    readonly fields: {
      readonly method: string
      readonly path: string
      readonly status: number
      readonly duration_ms: number
      readonly client_address: string | null
      readonly user_agent: string | null
      readonly organization_id: string | null
      readonly credential: string | null
    }
  ) {}

  toString(): string {
    const { duration_ms, method, path, status } = this.fields
    return `${method} ${path} ${status} ${duration_ms}ms`
  }
}

/**
 * Where request lines go. A request line is written at `info`, once per request, so the log
 * layer may take it straight to its output (`write`), skipping the work of a log event; it says
 * `logged: false` when its level leaves request lines out. Without either, a request line is
 * logged as any other line is.
 */
export class RequestLines extends Context.Reference<RequestLines>()("roster/observability/RequestLines", {
  defaultValue: (): {
    readonly logged: boolean
    readonly write: ((requestId: string, line: RequestLine) => void) | undefined
  } => ({ logged: true, write: undefined })
}) {}

/** Logs a request's line as `lines` has it logged. */
export const logRequestLine = (
  lines: RequestLines["Type"],
  requestId: string,
  line: () => RequestLine
): Effect.Effect<void> => {
  if (!lines.logged) return Effect.void
  const { write } = lines
  return write === undefined ? Effect.logInfo(line()) : Effect.sync(() => write(requestId, line()))
}
