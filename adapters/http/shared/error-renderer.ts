import type { HttpServerResponse } from "@effect/platform"
import { Context } from "effect"
import type { ApiError } from "./api-error.js"

/**
 * How the running wire form writes an error out: the status and headers of the error, and a body
 * of the form's own shape. Each form provides one; the middleware both forms share answers every
 * error through it.
 */
export class ErrorRenderer extends Context.Tag("roster/http/ErrorRenderer")<ErrorRenderer, {
  /** The answer to an error of the request at `instance` (its path). */
  readonly render: (error: ApiError, instance: string) => HttpServerResponse.HttpServerResponse
}>() {}
