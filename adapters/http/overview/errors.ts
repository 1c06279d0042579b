import { HttpServerResponse } from "@effect/platform"
import { Layer, Schema } from "effect"
import type { ApiError } from "../shared/api-error.js"
import { type ErrorCode } from "../shared/error-catalog.js"
import { ErrorRenderer } from "../shared/error-renderer.js"
import { makeWireErrors, nameOfCode } from "../shared/wire-errors.js"

/** The overview form writes every error as `{error: {code, message, details}}`, as JSON. */

export const ErrorDetail = Schema.Struct({
  field: Schema.String.annotations({
    description: "where the problem is: a body field (`tags[1]`), a path or query parameter, `body` for the body as a whole, " +
      "or `request` for a value the database refused without telling which"
  }),
  message: Schema.String
}).annotations({ identifier: "ErrorDetail" })

const envelopeOf = (code: ErrorCode) =>
  Schema.Struct({
    error: Schema.Struct({
      code: Schema.Literal(code).annotations({ description: "what kind of error this is; the same for every occurrence" }),
      message: Schema.String.annotations({ description: "what went wrong in this occurrence" }),
      details: Schema.Array(ErrorDetail).annotations({
        description: "every field concerned, one entry per problem; empty when no field is to blame"
      })
    })
  })

/** `not_found` -> `NotFoundError`, `validation_error` -> `ValidationError`. */
const identifierOf = (code: ErrorCode): string => {
  const name = nameOfCode(code)
  return name.endsWith("Error") ? name : `${name}Error`
}

/** The errors of the overview form, declared by code. */
export const envelopes = makeWireErrors({ contentType: "application/json", identifier: identifierOf, body: envelopeOf })

/** The envelope of an error. */
export const envelopeBody = (error: ApiError) => ({
  error: { code: error.code, message: error.detail, details: error.fields }
})

/** Errors written out in the `error` envelope. */
export const EnvelopeRendererLive = Layer.succeed(
  ErrorRenderer,
  ErrorRenderer.of({
    render: (error) => HttpServerResponse.unsafeJson(envelopeBody(error), { status: error.status, headers: error.headers })
  })
)
