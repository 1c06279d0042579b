import { HttpServerResponse } from "@effect/platform"
import { Effect, Layer, Schema } from "effect"
import type { ApiError } from "../shared/api-error.js"
import { errorCatalog, type ErrorCode } from "../shared/error-catalog.js"
import { ErrorRenderer } from "../shared/error-renderer.js"
import { HttpSettings } from "../shared/http-settings.js"
import { makeWireErrors, nameOfCode } from "../shared/wire-errors.js"

/**
 * The reference form writes every error as an RFC 9457 (formerly 7807) problem,
 * `application/problem+json`, whose `type` links to the page of its code.
 */

const PROBLEM_CONTENT_TYPE = "application/problem+json"

export const FieldIssue = Schema.Struct({
  field: Schema.String.annotations({
    description: "where the problem is: a body field (`tags[1]`), a path or query parameter, or `body` for the body as a whole"
  }),
  message: Schema.String
}).annotations({ identifier: "FieldIssue" })

const problemFields = (status: number) => ({
  type: Schema.String.annotations({
    jsonSchema: {
      type: "string",
      format: "uri",
      description: "URL of the page that documents this kind of problem; its last segment is the error code"
    }
  }),
  title: Schema.String.annotations({ description: "short summary of the kind of problem; the same for every occurrence" }),
  status: Schema.Literal(status).annotations({
    jsonSchema: { type: "integer", enum: [status], description: "the HTTP status code" }
  }),
  detail: Schema.String.annotations({ description: "what went wrong in this occurrence" }),
  instance: Schema.String.annotations({ description: "the path of the request, without its query string" })
})

/** `not_found` -> `NotFoundProblem`. */
const identifierOf = (code: ErrorCode): string => `${nameOfCode(code)}Problem`

/** The errors of the reference form, declared by code. */
export const problems = makeWireErrors({
  contentType: PROBLEM_CONTENT_TYPE,
  identifier: identifierOf,
  body: (code) =>
    code === "validation_error"
      ? Schema.Struct({
        ...problemFields(400),
        errors: Schema.Array(FieldIssue).annotations({ description: "every problem found, one per field" })
      })
      : Schema.Struct(problemFields(errorCatalog[code].status))
})

/** The problem of an error, as the body of an answer to the request at `instance`. */
export const problemBody = (error: ApiError, errorsBaseUrl: string, instance: string): Record<string, unknown> => {
  const body: Record<string, unknown> = {
    type: `${errorsBaseUrl}/${error.code}`,
    title: errorCatalog[error.code].title,
    status: error.status,
    detail: error.detail,
    instance
  }
  if (error.code === "validation_error") body.errors = error.fields
  return body
}

/** Errors written out as problems, their `type` under ERRORS_BASE_URL. */
export const ProblemRendererLive = Layer.effect(
  ErrorRenderer,
  Effect.map(HttpSettings, ({ errorsBaseUrl }) =>
    ErrorRenderer.of({
      render: (error, instance) =>
        HttpServerResponse.unsafeJson(problemBody(error, errorsBaseUrl, instance), {
          status: error.status,
          contentType: PROBLEM_CONTENT_TYPE,
          headers: error.headers
        })
    }))
)
