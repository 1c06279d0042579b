import { errorCatalog, type ErrorCode } from "./error-catalog.js"
import type { OpenApiDocument, OpenApiOperation, OpenApiResponse } from "./openapi-model.js"
import { isPreferencePath, isSignUpPagePath } from "./rate-limit-middleware.js"
import type { WireErrors } from "./wire-errors.js"

/**
 * Declares, on every operation they can reach, the answers that the middleware gives before an
 * endpoint runs, from the same rules the middleware follows (failure-answers.ts,
 * rate-limit-middleware.ts):
 * - a method with a body (POST, PUT, PATCH) answers 413 `payload_too_large` past the body limit, and
 *   400 `validation_error` for a body that is not JSON or nests too deep; one whose body is JSON
 *   answers 415 `unsupported_media_type` to another content type (a form's or a file's does not);
 * - the preference center and one-click unsubscribe answer 429 `rate_limited` past the limits of a
 *   link and of a client address;
 * - every operation that reads storage answers 503 `service_unavailable` while the database does
 *   not, and every operation 500 `internal_error` on a fault.
 * A status the operation already declares gets the code's body as one more alternative.
 */

const methodsWithBody = new Set(["post", "put", "patch"])

/** Operations that read no storage: the liveness probe, the error pages and the sign-in page. */
const readsNoStorage = new Set(["get /health", "get /errors/{code}", "get /auth/sign-in"])

const FORM = "application/x-www-form-urlencoded"

/** What the operation's body is, as its declared request body says: JSON unless a form or a file is declared. */
const bodyKindOf = (operation: OpenApiOperation): "json" | "form" | "file" => {
  const types = Object.keys((operation.requestBody as { readonly content?: object } | undefined)?.content ?? {})
  if (types.includes(FORM)) return "form"
  return types.some((type) => type !== "application/json" && !type.endsWith("+json")) ? "file" : "json"
}

const retryAfter = {
  description: "seconds to wait before trying again",
  schema: { type: "integer", minimum: 1 }
}

/** The answers of the middleware that `method` at `path` can get, declared on `operation`. */
export const declareMiddlewareAnswersOf = (
  path: string,
  method: string,
  operation: OpenApiOperation,
  errors: WireErrors
): void => {
  const declare = (code: ErrorCode): void => {
    const { status, title } = errorCatalog[code]
    const ref = `#/components/schemas/${errors.identifier(code)}`
    const schema = { $ref: ref }
    const response: OpenApiResponse = operation.responses[status] ??= { description: `${title} (\`${code}\`)` }
    const media = response.content?.[errors.contentType]
    if (media === undefined) {
      response.content = { ...response.content, [errors.contentType]: { schema } }
    } else {
      const current = media.schema as { $ref?: string; anyOf?: Array<{ $ref?: string }> }
      const listed = current.anyOf ?? [current]
      if (listed.some((member) => member.$ref === ref)) return
      media.schema = { anyOf: [...listed, schema] }
      response.description = `${response.description} | ${title} (\`${code}\`)`
    }
    if (status === 429) response.headers = { "Retry-After": retryAfter, ...response.headers }
  }
  if (methodsWithBody.has(method)) {
    const kind = bodyKindOf(operation)
    if (kind !== "file") {
      declare("payload_too_large")
      declare("validation_error")
    }
    if (kind === "json") declare("unsupported_media_type")
  }
  if (isPreferencePath(path) || isSignUpPagePath(path)) declare("rate_limited")
  if (!readsNoStorage.has(`${method} ${path}`)) declare("service_unavailable")
  declare("internal_error")
}

/** The answers of the middleware, declared on every operation of the document. */
export const declareMiddlewareAnswers = (document: OpenApiDocument, errors: WireErrors): void => {
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) declareMiddlewareAnswersOf(path, method, operation, errors)
  }
}
