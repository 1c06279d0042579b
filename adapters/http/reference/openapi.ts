import {
  documentTransform,
  type OpenApiDocument,
  type OpenApiOperation,
  type OpenApiResponse
} from "../openapi-model.js"

/**
 * Finishes the generated OpenAPI document so that it describes exactly what runs: bad input
 * anywhere answers a `validation_error` problem (never the framework's own decode error), a
 * status that several problems share is still `application/problem+json` and names them all,
 * operations that take no input cannot answer 400, and operations that take a session as well as
 * an API key read the organization from `X-Organization-Id`.
 */

const ValidationProblemRef = { $ref: "#/components/schemas/ValidationProblem" }

const frameworkSchemas = ["HttpApiDecodeError", "Issue", "PropertyKey"]

/** The header a session names its organization with, on operations that take a key or a session. */
const organizationHeader = {
  name: "X-Organization-Id",
  in: "header",
  required: false,
  description: "With the `svc_session` cookie: the id of the organization to act for, one the signed-in user is a " +
    "member of. Required then (400 `validation_error` without it, 403 `forbidden` when the user is not a member); " +
    "ignored with an API key, whose own organization is always the one acted for.",
  schema: { type: "string", format: "uuid" }
}

const takesKeyOrSession = (operation: OpenApiOperation): boolean => {
  const schemes = (operation.security ?? []).flatMap((requirement) => Object.keys(requirement))
  return schemes.includes("apiKey") && schemes.includes("session")
}

const problemRefPattern = /^#\/components\/schemas\/(\w+Problem)$/

/** The problems an `anyOf` of problem references lists, or `undefined` when it is anything else. */
const problemsOf = (schema: unknown): ReadonlyArray<string> | undefined => {
  const anyOf = (schema as { anyOf?: ReadonlyArray<{ $ref?: string }> } | undefined)?.anyOf
  if (anyOf === undefined) return undefined
  const names = anyOf.map((member) => problemRefPattern.exec(member.$ref ?? "")?.[1])
  return names.every((name) => name !== undefined) ? names as ReadonlyArray<string> : undefined
}

/**
 * Several problems on one status come out of the generator as JSON without their content type;
 * they are problems like any other, and the description names each.
 */
const joinSharedStatus = (spec: OpenApiDocument, response: OpenApiResponse): void => {
  const json = response.content?.["application/json"]
  const problems = problemsOf(json?.schema)
  if (json === undefined || problems === undefined) return
  const descriptions = problems.map((name) =>
    (spec.components.schemas[name] as { description?: string } | undefined)?.description ?? name
  )
  response.description = `One of: ${descriptions.join(" | ")}`
  response.content = { "application/problem+json": json }
}

const takesInput = (operation: OpenApiOperation): boolean =>
  (operation.parameters?.length ?? 0) > 0 || operation.requestBody !== undefined

export const finishOpenApi = documentTransform((spec: OpenApiDocument) => {
  for (const pathItem of Object.values(spec.paths)) {
    for (const operation of Object.values(pathItem)) {
      if (takesKeyOrSession(operation)) operation.parameters = [...(operation.parameters ?? []), organizationHeader]
      const responses = operation.responses
      for (const [status, response] of Object.entries(responses)) {
        if (Number(status) >= 400) joinSharedStatus(spec, response)
      }
      if (responses["400"] === undefined) continue
      if (!takesInput(operation)) {
        delete responses["400"]
        continue
      }
      responses["400"] = {
        description: "Validation Error (`validation_error`): a field, a path or query parameter, or a header (`X-Organization-Id` with a session) is missing, unknown or invalid; every one is named",
        content: { "application/problem+json": { schema: ValidationProblemRef } }
      }
    }
  }
  for (const name of frameworkSchemas) delete spec.components.schemas[name]
  return spec
})
