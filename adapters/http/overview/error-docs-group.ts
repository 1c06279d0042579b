import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ErrorCodeDocument } from "../error-pages.js"
import { operationTransform } from "../openapi-model.js"

/** OpenAPI: the page form of the answer, beside its JSON form. */
const documentHtmlForm = operationTransform((operation) => {
  const ok = operation.responses["200"]
  if (ok?.content !== undefined) {
    ok.content = { "text/html": { schema: { type: "string" } }, ...ok.content }
  }
  return operation
})

/** The same documentation of error codes as the reference form serves; an unknown code is a 404 envelope. */
export const ErrorDocsGroup = HttpApiGroup.make("errors")
  .add(
    HttpApiEndpoint.get("describe", "/errors/:code")
      .setPath(Schema.Struct({ code: Schema.String.annotations({ description: "an error code, as `error.code` carries it" }) }))
      .addSuccess(ErrorCodeDocument)
      .annotate(OpenApi.Transform, documentHtmlForm)
      .annotateContext(OpenApi.annotations({
        summary: "Describe an error code",
        description: "What an error code means and what to do about it: a page for browsers, JSON when the " +
          "Accept header asks for `application/json`."
      }))
  )
  .annotate(OpenApi.Title, "Errors")
  .annotate(OpenApi.Description, "Documentation of the error codes that error envelopes carry.")
