import { IDEMPOTENCY_RETENTION_MS, keepsResponse, MAX_IDEMPOTENCY_KEY_LENGTH } from "@roster/application"
import {
  declareUnroutedAnswers,
  documentTransform,
  dropGeneratedIds,
  type OpenApiDocument,
  type OpenApiHeader,
  type OpenApiOperation,
  type OpenApiResponse
} from "../shared/openapi-model.js"
import { IDEMPOTENCY_KEY_HEADER, isApiPath, RATE_LIMIT_HEADERS, REPLAYED_HEADER } from "../shared/api-v1.js"
import { declareMiddlewareAnswersOf } from "../shared/openapi-middleware.js"
import { problems } from "./problems.js"

/**
 * Finishes the generated OpenAPI document so that it describes exactly what runs: bad input
 * anywhere answers a `validation_error` problem (never the framework's own decode error), a
 * status that several problems share is still `application/problem+json` and names them all,
 * operations that take no input cannot answer 400, and operations that take a session as well as
 * an API key read the organization from `X-Organization-Id`. Every answer of `/api/v1` tells the
 * rate limit, a 429 when to try again, and every POST there takes an `Idempotency-Key`.
 */

const ValidationProblemRef = { $ref: "#/components/schemas/ValidationErrorProblem" }

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
  const { "application/json": _, ...others } = response.content ?? {}
  response.description = Object.keys(others).length === 0
    ? `One of: ${descriptions.join(" | ")}`
    : `One of: ${descriptions.join(" | ")}; ${response.description}`
  response.content = { ...others, "application/problem+json": json }
}

/** The headers every `/api/v1` answer carries, declared once under `components.headers`. */
const rateLimitHeaders: Record<string, OpenApiHeader> = {
  [RATE_LIMIT_HEADERS.limit]: {
    description: "How many requests the current one-minute window allows: the organization's plan rate, or for " +
      "requests without a valid credential that of the client address.",
    schema: { type: "integer", minimum: 0 }
  },
  [RATE_LIMIT_HEADERS.remaining]: {
    description: "How many requests are left in the current window.",
    schema: { type: "integer", minimum: 0 }
  },
  [RATE_LIMIT_HEADERS.reset]: {
    description: "When the current window ends and the count starts again, as Unix time in seconds.",
    schema: { type: "integer" }
  }
}

const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` })

const retryAfterHeader: OpenApiHeader = {
  description: "seconds to wait before trying again",
  schema: { type: "integer", minimum: 1 }
}

const replayedHeader: OpenApiHeader = {
  description: `\`true\` when this answer was kept for the \`${IDEMPOTENCY_KEY_HEADER}\` of an earlier request and is ` +
    "given again instead of carrying the request out a second time; absent otherwise.",
  schema: { type: "string", enum: ["true"] }
}

const idempotencyKeyParameter = {
  name: IDEMPOTENCY_KEY_HEADER,
  in: "header",
  required: false,
  description: [
    "A key of your choosing (a UUID, for example) that makes retrying this request safe.",
    `The first answer to the key is kept ${IDEMPOTENCY_RETENTION_MS / 3_600_000} hours, per organization and credential,`,
    "and a repeat of the same request (same method, path and body) gets it again with",
    `\`${REPLAYED_HEADER}: true\` instead of running twice. The key with another request is 422`,
    "`idempotency_key_reused`; a repeat while the first is still running is 409 `idempotency_request_in_progress`.",
    "Answers 400 and 5xx are not kept, so a corrected request may use the key again."
  ].join(" "),
  schema: { type: "string", minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH, pattern: "^[\\x21-\\x7e]+$" }
}

/** An operation whose body is a file it streams (an import's CSV): it takes no `Idempotency-Key`. */
const streamsAFile = (operation: OpenApiOperation): boolean =>
  Object.keys((operation.requestBody as { readonly content?: object } | undefined)?.content ?? {})
    .some((mediaType) => mediaType !== "application/json")

const takesIdempotencyKey = (path: string, method: string, operation: OpenApiOperation): boolean =>
  isApiPath(path) && method === "post" && !streamsAFile(operation)

/** Refusals that come before the endpoint runs: never kept for a key, so never replayed. */
const refusedBeforeTheEndpoint = new Set([401, 413, 415, 422, 429])

/** Whether an answer of this status may be a replay of a kept one. */
const mayBeReplayed = (status: number): boolean => keepsResponse(status) && !refusedBeforeTheEndpoint.has(status)

/** Rate-limit headers on every answer of an `/api/v1` operation; for a POST also its `Idempotency-Key`. */
const documentApiConventions = (path: string, method: string, operation: OpenApiOperation): void => {
  if (!isApiPath(path)) return
  const isPost = takesIdempotencyKey(path, method, operation)
  if (isPost) operation.parameters = [...(operation.parameters ?? []), idempotencyKeyParameter]
  for (const [status, response] of Object.entries(operation.responses)) {
    const headers = { ...response.headers }
    for (const name of Object.keys(rateLimitHeaders)) headers[name] = headerRef(name)
    if (status === "429") headers["Retry-After"] = retryAfterHeader
    if (isPost && mayBeReplayed(Number(status))) headers[REPLAYED_HEADER] = replayedHeader
    response.headers = headers
  }
}

/** Whether an operation reads parameters or a body, which can be invalid (any POST, PUT or PATCH has a body to read). */
const takesInput = (method: string, operation: OpenApiOperation): boolean =>
  (operation.parameters?.length ?? 0) > 0 || operation.requestBody !== undefined ||
  method === "post" || method === "put" || method === "patch"

export const finishOpenApi = documentTransform((spec: OpenApiDocument) => {
  for (const [path, pathItem] of Object.entries(spec.paths)) {
    for (const [method, operation] of Object.entries(pathItem)) {
      if (takesKeyOrSession(operation)) operation.parameters = [...(operation.parameters ?? []), organizationHeader]
      const responses = operation.responses
      for (const [status, response] of Object.entries(responses)) {
        if (Number(status) >= 400) joinSharedStatus(spec, response)
      }
      declareMiddlewareAnswersOf(path, method, operation, problems)
      if (responses["400"] !== undefined) {
        if (takesInput(method, operation)) {
          const headers = takesIdempotencyKey(path, method, operation)
            ? `\`X-Organization-Id\` with a session, \`${IDEMPOTENCY_KEY_HEADER}\``
            : "`X-Organization-Id` with a session"
          // Pages stay as they are declared (the preference page's answer to a form it cannot read).
          const pages = Object.fromEntries(
            Object.entries(responses["400"].content ?? {}).filter(([mediaType]) => !mediaType.includes("json"))
          )
          responses["400"] = {
            description: `Validation Error (\`validation_error\`): a field, a path or query parameter, or a header (${headers}) ` +
              "is missing, unknown or invalid; every one is named" +
              (Object.keys(pages).length === 0 ? "" : `; ${responses["400"].description}`),
            content: { ...pages, "application/problem+json": { schema: ValidationProblemRef } }
          }
        } else {
          delete responses["400"]
        }
      }
      documentApiConventions(path, method, operation)
    }
  }
  spec.components.headers = { ...spec.components.headers, ...rateLimitHeaders }
  for (const name of frameworkSchemas) delete spec.components.schemas[name]
  declareUnroutedAnswers(spec, {
    contentType: "application/problem+json",
    notFound: "NotFoundProblem",
    methodNotAllowed: "MethodNotAllowedProblem"
  })
  dropGeneratedIds(spec)
  return spec
})
