import { documentTransform, type OpenApiDocument } from "../openapi-model.js"

const frameworkSchemas = ["HttpApiDecodeError", "Issue", "PropertyKey"]

const validationErrorRef = { $ref: "#/components/schemas/ValidationError" }

const problemRef = /^#\/components\/schemas\/(\w+)Problem$/

/** The error schema of this form for a problem schema of the shared routes: `NotFoundProblem` -> `NotFoundError`. */
const errorNameOf = (problem: string): string => problem === "InternalError" ? "InternalError" : `${problem}Error`

/** The schema with every reference to a problem turned into one to the error of the same code. */
const withErrorRefs = (schema: unknown): unknown => {
  if (Array.isArray(schema)) return schema.map(withErrorRefs)
  if (typeof schema !== "object" || schema === null) return schema
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => {
    if (key === "$ref" && typeof value === "string") {
      const match = problemRef.exec(value)
      return [key, match === null ? value : `#/components/schemas/${errorNameOf(match[1]!)}`]
    }
    return [key, withErrorRefs(value)]
  }))
}

/**
 * Finishes the generated OpenAPI document so that it describes what runs: every error is this
 * form's `error` envelope as JSON, on the routes shared with the reference form too, and bad input
 * anywhere answers a `validation_error` envelope, never the framework's own decode error.
 */
export const finishOverviewOpenApi = documentTransform((spec: OpenApiDocument) => {
  spec.paths = withErrorRefs(spec.paths) as OpenApiDocument["paths"]
  for (const path of Object.values(spec.paths)) {
    for (const operation of Object.values(path)) {
      for (const response of Object.values(operation.responses)) {
        const problem = response.content?.["application/problem+json"]
        if (response.content === undefined || problem === undefined) continue
        const { "application/problem+json": _problem, ...others } = response.content
        response.content = { ...others, "application/json": problem }
      }
      const bad = operation.responses["400"]
      if (bad !== undefined) bad.content = { "application/json": { schema: validationErrorRef } }
    }
  }
  for (const name of Object.keys(spec.components.schemas)) {
    if (name.endsWith("Problem") || frameworkSchemas.includes(name)) delete spec.components.schemas[name]
  }
  return spec
})
