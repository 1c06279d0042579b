import { HttpApiError, type HttpApp, HttpServerError, HttpServerRequest, type HttpServerResponse } from "@effect/platform"
import { Cause, Effect, Either, Option, Predicate } from "effect"
import { type ApiError, apiError, type FieldIssue, isApiError } from "./api-error.js"
import { docsRoutes } from "./docs.js"
import { ErrorRenderer } from "./error-renderer.js"
import { jsonNestingDepth } from "./json-depth.js"
import { bodyTextProblem, readBodyText, withBodyText } from "./request-body.js"
import { pathOf } from "./request-path.js"
import { type KnownRoute, makeRouteTable } from "./route-table.js"

export const MAX_BODY_BYTES = 1024 * 1024
/**
 * A body sent without Content-Length is read up to this size to answer it with a 413 once it is
 * over `MAX_BODY_BYTES`: a connection closed under a client that is still sending reaches it as a
 * reset, not as the answer. Past this size the connection is closed.
 */
const MAX_READ_BYTES = 8 * MAX_BODY_BYTES
/** Arrays and objects nest at most this deep in a body. */
export const MAX_BODY_DEPTH = 32

const MAX_LISTED_ISSUES = 100
const MAX_ISSUES_IN_DETAIL = 10
const MAX_MESSAGE_LENGTH = 200

/** Methods whose endpoints read a body (an action's may be empty; a DELETE's is an action's). */
const methodsWithBody = new Set(["POST", "PUT", "PATCH", "DELETE"])

/** Whether a request carries a body at all: a length above zero, or one sent in chunks. */
const carriesBody = (headers: Readonly<Record<string, string | undefined>>): boolean =>
  Number(headers["content-length"] ?? 0) > 0 || headers["transfer-encoding"] !== undefined

/** Whether a `Content-Type` names JSON: `application/json` or a `+json` type, parameters aside. */
export const isJsonMediaType = (contentType: string): boolean => {
  const mediaType = contentType.split(";")[0]!.trim().toLowerCase()
  return mediaType === "application/json" || /^application\/[a-z0-9.+-]+\+json$/.test(mediaType)
}

const fieldOf = (path: ReadonlyArray<PropertyKey>): string =>
  path.length === 0
    ? "body"
    : path.reduce<string>(
      (field, key, i) => typeof key === "number" ? `${field}[${key}]` : i === 0 ? String(key) : `${field}.${String(key)}`,
      ""
    )

const shorten = (message: string): string =>
  message.length <= MAX_MESSAGE_LENGTH ? message : `${message.slice(0, MAX_MESSAGE_LENGTH - 1)}…`

/**
 * A field that may also be null (or left out) fails once per alternative; the "Expected null"
 * alternative says nothing when another one explains the problem.
 */
const isAlternativeNoise = (message: string) => /^Expected (null|undefined), actual /.test(message)

const issuesOf = (error: HttpApiError.HttpApiDecodeError): ReadonlyArray<FieldIssue> => {
  const all = error.issues.map((issue) => ({
    field: fieldOf(issue.path),
    message: issue.path.length === 0 && issue._tag === "Type" ? "must be a JSON object" : shorten(issue.message)
  }))
  const explained = new Set(all.filter((i) => !isAlternativeNoise(i.message)).map((i) => i.field))
  const seen = new Set<string>()
  const issues: Array<FieldIssue> = []
  for (const issue of all) {
    if (isAlternativeNoise(issue.message) && explained.has(issue.field)) continue
    const key = `${issue.field}\u0000${issue.message}`
    if (seen.has(key)) continue
    seen.add(key)
    issues.push(issue)
  }
  return issues
}

const detailOf = (issues: ReadonlyArray<FieldIssue>): string => {
  const shown = issues.slice(0, MAX_ISSUES_IN_DETAIL).map((i) => `${i.field}: ${i.message}`).join("; ")
  return issues.length > MAX_ISSUES_IN_DETAIL ? `${shown}; and ${issues.length - MAX_ISSUES_IN_DETAIL} more` : shown
}

const isSqlError = (u: unknown): boolean => Predicate.isTagged(u, "SqlError")

/** The SQLSTATE of a database error, when the database gave one. */
const sqlStateOf = (error: unknown): string | undefined => {
  const code = (error as { readonly cause?: { readonly code?: unknown } | null }).cause?.code
  return typeof code === "string" ? code : undefined
}

/**
 * What a data exception of the database (SQLSTATE class 22) says of the request: it held a value
 * the database cannot take or compare. That is the request's fault, answered 400, never "try
 * again"; the values that reach the database are checked before, so this is the last line.
 */
const dataExceptions: Readonly<Record<string, string>> = {
  "22P02": "holds a value that is not in the form its field takes (such as an id that is not a UUID)",
  "22007": "holds a date or time that is not valid",
  "22008": "holds a date or time out of range",
  "22003": "holds a number out of range",
  "22001": "holds a text longer than its field takes",
  "22021": "holds a character that cannot be stored (a NUL character, or bytes that are not UTF-8)",
  "22P05": "holds a character that cannot be stored (a NUL character, or half of a surrogate pair)",
  "2202E": "holds a position out of range",
  "22023": "holds a value that is not valid here"
}

const dataExceptionOf = (error: unknown): FieldIssue | undefined => {
  const state = sqlStateOf(error)
  if (state === undefined || !state.startsWith("22")) return undefined
  return { field: "request", message: dataExceptions[state] ?? "holds a value the service cannot store or compare" }
}

/** How the Node server reports a body over the `MaxBodySize` it was given. */
const isBodyTooLarge = (u: HttpServerError.RequestError): boolean =>
  u.cause instanceof Error && u.cause.message === "maxBytes exceeded"

/**
 * Answers every failure of a request in the running form's error body: the errors of endpoints,
 * authentication and the middleware, the framework's failures (bad input, unknown routes,
 * unreadable bodies), and every defect, which never shows its internals.
 */
export interface FailureAnswersOptions {
  /** The routes of the form's API (the docs' are added). */
  readonly routes: ReadonlyArray<KnownRoute>
}

/** A 400 `validation_error` naming each field that was wrong. */
export const invalidAnswer = (
  render: ErrorRenderer["Type"]["render"],
  instance: string,
  issues: ReadonlyArray<FieldIssue>
): HttpServerResponse.HttpServerResponse =>
  render(apiError("validation_error", detailOf(issues), { fields: issues.slice(0, MAX_LISTED_ISSUES) }), instance)

/** A `validation_error` naming each field of a body that did not decode, for a handler that decodes it itself. */
export const decodeErrorOf = (error: HttpApiError.HttpApiDecodeError): ApiError<"validation_error"> => {
  const issues = issuesOf(error)
  return apiError("validation_error", detailOf(issues), { fields: issues.slice(0, MAX_LISTED_ISSUES) })
}

/** The answer to a request whose path, query or body did not decode. */
export const decodeErrorAnswer = (
  render: ErrorRenderer["Type"]["render"],
  instance: string,
  error: HttpApiError.HttpApiDecodeError
): HttpServerResponse.HttpServerResponse => invalidAnswer(render, instance, issuesOf(error))

/**
 * The answer to a defect of a request (a body that could not be read, a database that did not
 * answer, a fault), which never shows its internals; an interruption stays one.
 */
export const defectAnswer = <E>(
  render: ErrorRenderer["Type"]["render"],
  instance: string,
  cause: Cause.Cause<E>
): Effect.Effect<HttpServerResponse.HttpServerResponse, E> => {
  if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause)
  const defect = Option.getOrUndefined(Cause.dieOption(cause))
  if (HttpServerError.isServerError(defect) && defect._tag === "RequestError") {
    return Effect.succeed(
      isBodyTooLarge(defect)
        ? render(apiError("payload_too_large", `the body is larger than ${MAX_BODY_BYTES} bytes`), instance)
        : invalidAnswer(render, instance, [{ field: "body", message: "is not valid JSON" }])
    )
  }
  if (isSqlError(defect)) {
    const issue = dataExceptionOf(defect)
    if (issue !== undefined) {
      return Effect.logWarning("the database refused a value of the request", cause).pipe(
        Effect.as(invalidAnswer(render, instance, [issue]))
      )
    }
    return Effect.logWarning("the database did not answer", cause).pipe(
      Effect.as(render(
        apiError("service_unavailable", "the database is not reachable at the moment; try again shortly"),
        instance
      ))
    )
  }
  return Effect.logError("unexpected failure", cause).pipe(
    Effect.as(render(apiError("internal_error", "the service failed to answer; nothing about the fault is disclosed"), instance))
  )
}

export const makeFailureAnswers = (options: FailureAnswersOptions) => Effect.gen(function*() {
  const { render } = yield* ErrorRenderer
  const routes = makeRouteTable([...options.routes, ...docsRoutes])

  return (app: HttpApp.Default) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const instance = pathOf(request)
      const answer = (error: ApiError) => render(error, instance)
      const invalid = (issues: ReadonlyArray<FieldIssue>) => invalidAnswer(render, instance, issues)

      const route = methodsWithBody.has(request.method) ? routes.routeAt(request.method, instance) : undefined
      let read: string | undefined
      if (route?.body === "json") {
        const declaredLength = Number(request.headers["content-length"] ?? 0)
        if (declaredLength > MAX_BODY_BYTES) {
          return answer(apiError("payload_too_large", `the body is ${declaredLength} bytes; at most ${MAX_BODY_BYTES} are accepted`))
        }
        const contentType = request.headers["content-type"]
        // The type of a body that is not there is no reason to refuse a request.
        if (contentType !== undefined && !isJsonMediaType(contentType) && carriesBody(request.headers)) {
          return answer(apiError("unsupported_media_type", "the body must be JSON, sent with Content-Type: application/json"))
        }
        // Read once here (the endpoint is handed the text) to refuse deep nesting and bytes that are not UTF-8 early.
        const text = yield* readBodyText(request, MAX_READ_BYTES)
        if (Either.isLeft(text)) {
          return text.left === "too_large"
            ? answer(apiError("payload_too_large", `the body is larger than ${MAX_BODY_BYTES} bytes`))
            : invalid([{ field: "body", message: bodyTextProblem(text.left) }])
        }
        if (text.right.length > MAX_BODY_BYTES / 4 && Buffer.byteLength(text.right) > MAX_BODY_BYTES) {
          return answer(apiError("payload_too_large", `the body is larger than ${MAX_BODY_BYTES} bytes`))
        }
        if (jsonNestingDepth(text.right) > MAX_BODY_DEPTH) {
          return invalid([{ field: "body", message: `must not nest arrays and objects more than ${MAX_BODY_DEPTH} levels deep` }])
        }
        read = text.right
      }

      // Only a request that may carry a body has one to bound; a file's endpoint bounds it as it reads it.
      const bounded = !methodsWithBody.has(request.method)
        ? app
        : read !== undefined
        ? Effect.provideService(app, HttpServerRequest.HttpServerRequest, withBodyText(request, read))
        : HttpServerRequest.withMaxBodySize(app, route?.body === "file" ? Option.none() : Option.some(MAX_BODY_BYTES))
      return yield* bounded.pipe(
        Effect.catchAllCause((cause) => {
          const failure = Cause.failureOption(cause as Cause.Cause<unknown>)
          if (Option.isSome(failure)) {
            const error = failure.value
            if (isApiError(error)) return Effect.succeed(answer(error))
            if (error instanceof HttpApiError.HttpApiDecodeError) return Effect.succeed(decodeErrorAnswer(render, instance, error))
            if (HttpServerError.isServerError(error) && error._tag === "RouteNotFound") {
              const methods = routes.methodsAt(instance)
              // The path has this method's route, yet the router could not read a parameter.
              if (methods.includes(request.method)) {
                return Effect.succeed(invalid([{ field: "path", message: "has a parameter that is too long or not valid percent-encoded UTF-8" }]))
              }
              return Effect.succeed(answer(
                methods.length > 0
                  ? apiError("method_not_allowed", `${request.method} is not allowed here; use ${methods.join(", ")}`, {
                    headers: { Allow: methods.join(", ") }
                  })
                  : apiError("not_found", `no route for ${request.method} ${instance}`)
              ))
            }
          }
          return defectAnswer(render, instance, cause)
        })
      )
    })
})
