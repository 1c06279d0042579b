import { FiberRef } from "effect"

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
