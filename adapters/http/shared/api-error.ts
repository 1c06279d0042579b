import { Predicate } from "effect"
import { errorCatalog, type ErrorCode } from "./error-catalog.js"

/** One field (or parameter, or the body as a whole) that a request got wrong. */
export interface FieldIssue {
  /**
   * A body field (`tags[1]`), a path or query parameter, a header, `body` for the body as a whole,
   * or `request` for a value the database refused without telling which it was.
   */
  readonly field: string
  readonly message: string
}

/**
 * Every error the service answers, before a wire form writes it out: its code (which fixes the
 * status), what went wrong in this occurrence, the fields concerned and the headers that go with
 * it (`Retry-After`, `WWW-Authenticate`, `Allow`). Handlers, authentication and the middleware of
 * both forms fail with this one value; the reference form renders it as an RFC 9457 problem, the
 * overview form as an `error` envelope.
 */
export interface ApiError<C extends ErrorCode = ErrorCode> {
  readonly _tag: "ApiError"
  readonly code: C
  readonly status: number
  readonly detail: string
  readonly fields: ReadonlyArray<FieldIssue>
  readonly headers: Readonly<Record<string, string>>
}

export interface ApiErrorOptions {
  readonly fields?: ReadonlyArray<FieldIssue> | undefined
  readonly headers?: Readonly<Record<string, string>> | undefined
}

const noFields: ReadonlyArray<FieldIssue> = []
const noHeaders: Readonly<Record<string, string>> = {}

export const apiError = <C extends ErrorCode>(code: C, detail: string, options: ApiErrorOptions = {}): ApiError<C> => ({
  _tag: "ApiError",
  code,
  status: errorCatalog[code].status,
  detail,
  fields: options.fields ?? noFields,
  headers: options.headers ?? noHeaders
})

export const isApiError: (u: unknown) => u is ApiError = (u): u is ApiError => Predicate.isTagged(u, "ApiError")

/** The same error with more headers. */
export const withHeaders = <C extends ErrorCode>(error: ApiError<C>, headers: Readonly<Record<string, string>>): ApiError<C> => ({
  ...error,
  headers: { ...error.headers, ...headers }
})
