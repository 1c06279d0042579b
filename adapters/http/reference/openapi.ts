import { documentTransform, type OpenApiDocument, type OpenApiOperation } from "../openapi-model.js"

/**
 * Finishes the generated OpenAPI document so that it describes exactly what runs: bad input
 * anywhere answers a `validation_error` problem (never the framework's own decode error), and
 * operations that take no input cannot answer 400.
 */

const ValidationProblemRef = { $ref: "#/components/schemas/ValidationProblem" }

const frameworkSchemas = ["HttpApiDecodeError", "Issue", "PropertyKey"]

const takesInput = (operation: OpenApiOperation): boolean =>
  (operation.parameters?.length ?? 0) > 0 || operation.requestBody !== undefined

export const finishOpenApi = documentTransform((spec: OpenApiDocument) => {
  for (const pathItem of Object.values(spec.paths)) {
    for (const operation of Object.values(pathItem)) {
      const responses = operation.responses
      if (responses["400"] === undefined) continue
      if (!takesInput(operation)) {
        delete responses["400"]
        continue
      }
      responses["400"] = {
        description: "Validation Error (`validation_error`): a field, path or query parameter is missing, unknown or invalid; every one is named",
        content: { "application/problem+json": { schema: ValidationProblemRef } }
      }
    }
  }
  for (const name of frameworkSchemas) delete spec.components.schemas[name]
  return spec
})
