import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ErrorCodeDocument } from "./error-pages.js"
import { operationTransform } from "./openapi-model.js"
import type { WireErrors } from "./wire-errors.js"

/** OpenAPI: the page form of the answer, beside its JSON form. */
const documentHtmlForm = operationTransform((operation) => {
  const ok = operation.responses["200"]
  if (ok?.content !== undefined) {
    ok.content = { "text/html": { schema: { type: "string" } }, ...ok.content }
  }
  return operation
})

export interface ErrorDocsWording {
  /** Where an error's code is found in the form's error body. */
  readonly codeIn: string
  /** The form's name for its error bodies. */
  readonly errorBodies: string
  /** Where the form's error bodies link to these pages, if they do. */
  readonly linkedFrom?: string
}

/** `GET /errors/{code}`, the same in every form; an unknown code is a 404 in the form's error body. */
export const makeErrorDocsGroup = (errors: WireErrors, wording: ErrorDocsWording) =>
  HttpApiGroup.make("errors")
    .add(
      HttpApiEndpoint.get("describe", "/errors/:code")
        .setPath(Schema.Struct({
          code: Schema.String.annotations({ description: `an error code, ${wording.codeIn}` })
        }))
        .addSuccess(ErrorCodeDocument)
        .pipe(errors.endpoint("not_found"))
        .annotate(OpenApi.Transform, documentHtmlForm)
        .annotateContext(OpenApi.annotations({
          summary: "Describe an error code",
          description: "What an error code means and what to do about it: a page for browsers, JSON when the " +
            "Accept header asks for `application/json`." + (wording.linkedFrom === undefined ? "" : ` ${wording.linkedFrom}`)
        }))
    )
    .annotate(OpenApi.Title, "Errors")
    .annotate(OpenApi.Description, `Documentation of the error codes that ${wording.errorBodies} carry.`)
