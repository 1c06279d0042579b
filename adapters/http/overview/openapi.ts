import { declareMiddlewareAnswers } from "../shared/openapi-middleware.js"
import { envelopes } from "./errors.js"
import { declareUnroutedAnswers, documentTransform, dropGeneratedIds, type OpenApiDocument } from "../shared/openapi-model.js"

const frameworkSchemas = ["HttpApiDecodeError", "Issue", "PropertyKey"]

const validationErrorRef = { $ref: "#/components/schemas/ValidationError" }

/**
 * Finishes the generated OpenAPI document so that it describes what runs: bad input anywhere
 * answers a `validation_error` envelope, never the framework's own decode error (a page's 400
 * for browsers is kept beside it).
 */
export const finishOverviewOpenApi = documentTransform((spec: OpenApiDocument) => {
  for (const path of Object.values(spec.paths)) {
    for (const operation of Object.values(path)) {
      const bad = operation.responses["400"]
      // A page's own 400 (the page again, for a browser) stays beside the envelope.
      const page = bad?.content?.["text/html"]
      if (bad !== undefined) bad.content = { "application/json": { schema: validationErrorRef }, ...(page === undefined ? {} : { "text/html": page }) }
    }
  }
  for (const name of frameworkSchemas) delete spec.components.schemas[name]
  declareMiddlewareAnswers(spec, envelopes)
  declareUnroutedAnswers(spec, { contentType: "application/json", notFound: "NotFoundError", methodNotAllowed: "MethodNotAllowedError" })
  dropGeneratedIds(spec)
  return spec
})
