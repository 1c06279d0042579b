import { type HttpApi, type HttpApiEndpoint, type HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { ParseResult, Schema } from "effect"
import { type ApiError, isApiError } from "./api-error.js"
import type { EndpointDescription, SharedEndpoint } from "./endpoint-description.js"
import { errorCatalog, type ErrorCode, errorCodes } from "./error-catalog.js"

/**
 * How a wire form declares the errors its endpoints answer. Every error is the one neutral
 * {@link ApiError}; a form gives, per code, the schema of the body it writes (for the API's
 * description) and renders the error itself when it answers (it needs the request for that, which
 * a schema does not see). So handlers and middleware are the same for both forms, and declaring an
 * endpoint's errors is naming their codes.
 */

/** The error of one code, described with a form's body. */
export type WireErrorSchema<C extends ErrorCode> = Schema.Schema<ApiError<C>, unknown>

export type WireErrorSchemas = { readonly [C in ErrorCode]: WireErrorSchema<C> }

export interface WireErrorsOptions {
  /** The body a form writes for an error of `code`. */
  readonly body: (code: ErrorCode) => Schema.Schema.AnyNoContext
  /** The name of that body in the API's description (`NotFoundProblem`, `NotFoundError`). */
  readonly identifier: (code: ErrorCode) => string
  readonly contentType: string
}

type EndpointWith<Endpoint, C extends ErrorCode> = Endpoint extends HttpApiEndpoint.HttpApiEndpoint<
  infer Name,
  infer Method,
  infer Path,
  infer UrlParams,
  infer Payload,
  infer Headers,
  infer Success,
  infer Error,
  infer R,
  infer RE
> ? HttpApiEndpoint.HttpApiEndpoint<Name, Method, Path, UrlParams, Payload, Headers, Success, Error | ApiError<C>, R, RE>
  : never

type GroupWith<Group, C extends ErrorCode> = Group extends
  HttpApiGroup.HttpApiGroup<infer Id, infer Endpoints, infer Error, infer R, infer TopLevel>
  ? HttpApiGroup.HttpApiGroup<Id, Endpoints, Error | ApiError<C>, R, TopLevel>
  : never

type ApiWith<Api, C extends ErrorCode> = Api extends HttpApi.HttpApi<infer Id, infer Groups, infer Error, infer R>
  ? HttpApi.HttpApi<Id, Groups, Error | ApiError<C>, R>
  : never

interface AddsErrors {
  addError(schema: Schema.Schema.Any): AddsErrors
}

interface Annotates {
  annotateContext(context: ReturnType<typeof OpenApi.annotations>): Annotates
}

export interface WireErrors {
  readonly schemas: WireErrorSchemas
  /** The content type of the form's error bodies. */
  readonly contentType: string
  /** The name of a code's body under the description's `components.schemas`. */
  readonly identifier: (code: ErrorCode) => string
  /** The errors of these codes, as one schema (for a middleware's `failure`). */
  readonly union: <const Codes extends ReadonlyArray<ErrorCode>>(...codes: Codes) => WireErrorSchema<Codes[number]>
  /** Declares that an endpoint may answer errors of these codes. */
  readonly endpoint: <const Codes extends ReadonlyArray<ErrorCode>>(
    ...codes: Codes
  ) => <Endpoint extends HttpApiEndpoint.HttpApiEndpoint.Any>(endpoint: Endpoint) => EndpointWith<Endpoint, Codes[number]>
  /** Declares an endpoint as its shared description says: its summary, its description and its errors. */
  readonly describe: <const Codes extends ReadonlyArray<ErrorCode>>(
    description: EndpointDescription<Codes>
  ) => <Endpoint extends HttpApiEndpoint.HttpApiEndpoint.Any>(endpoint: Endpoint) => EndpointWith<Endpoint, Codes[number]>
  /** A shared endpoint, declared as its description says. */
  readonly declare: <Endpoint extends HttpApiEndpoint.HttpApiEndpoint.Any, const Codes extends ReadonlyArray<ErrorCode>>(
    shared: SharedEndpoint<Endpoint, Codes>
  ) => EndpointWith<Endpoint, Codes[number]>
  /** Declares that every endpoint of a group may answer errors of these codes. */
  readonly group: <const Codes extends ReadonlyArray<ErrorCode>>(
    ...codes: Codes
  ) => <Group extends HttpApiGroup.HttpApiGroup.Any>(group: Group) => GroupWith<Group, Codes[number]>
  /** Declares that any route of an API may answer errors of these codes. */
  readonly api: <const Codes extends ReadonlyArray<ErrorCode>>(
    ...codes: Codes
  ) => <Api extends HttpApi.HttpApi.Any>(api: Api) => ApiWith<Api, Codes[number]>
}

const renderedByTheForm = "written out by the wire form when it answers"

export const makeWireErrors = (options: WireErrorsOptions): WireErrors => {
  const schemaOf = <C extends ErrorCode>(code: C): WireErrorSchema<C> => {
    const entry = errorCatalog[code]
    const error = Schema.declare((u: unknown): u is ApiError<C> => isApiError(u) && u.code === code, {
      identifier: `ApiError.${code}`
    })
    return Schema.transformOrFail(options.body(code), error, {
      strict: false,
      decode: (body, _, ast) => ParseResult.fail(new ParseResult.Forbidden(ast, body, renderedByTheForm)),
      encode: (value, _, ast) => ParseResult.fail(new ParseResult.Forbidden(ast, value, renderedByTheForm))
    }).annotations({
      identifier: options.identifier(code),
      title: entry.title,
      description: `${entry.title} (\`${code}\`): ${entry.meaning}`,
      [HttpApiSchema.AnnotationStatus]: entry.status,
      [HttpApiSchema.AnnotationEncoding]: { kind: "Json", contentType: options.contentType }
    }) as unknown as WireErrorSchema<C>
  }
  const schemas = Object.fromEntries(errorCodes.map((code) => [code, schemaOf(code)])) as unknown as WireErrorSchemas
  const adding = (codes: ReadonlyArray<ErrorCode>) => (target: AddsErrors): AddsErrors =>
    codes.reduce((declared, code) => declared.addError(schemas[code]), target)
  const describe: WireErrors["describe"] = ({ description, errors, summary }) => (endpoint) =>
    (adding(errors)(endpoint as unknown as AddsErrors) as unknown as Annotates)
      .annotateContext(OpenApi.annotations({ summary, description })) as never
  return {
    schemas,
    contentType: options.contentType,
    identifier: options.identifier,
    union: (...codes) => Schema.Union(...codes.map((code) => schemas[code])) as never,
    endpoint: (...codes) => (endpoint) => adding(codes)(endpoint as unknown as AddsErrors) as never,
    describe,
    declare: (shared) => describe(shared)(shared.endpoint),
    group: (...codes) => (group) => adding(codes)(group as unknown as AddsErrors) as never,
    api: (...codes) => (api) => adding(codes)(api as unknown as AddsErrors) as never
  }
}

/** What every endpoint that reads a body may answer besides its own errors. */
export const BODY_ERRORS = ["payload_too_large", "unsupported_media_type"] as const

/** What every `POST` of the API may answer besides its own errors: `Idempotency-Key` refusals too. */
export const POST_ERRORS = [...BODY_ERRORS, "idempotency_key_reused", "idempotency_request_in_progress"] as const

/** What every route of the API may answer: bad input, refusals, rate limits, an unreachable database. */
export const API_ROUTE_ERRORS = ["validation_error", "forbidden", "rate_limited", "service_unavailable"] as const

/** A code's name in the API's description: `not_found` -> `NotFound`. */
export const nameOfCode = (code: ErrorCode): string =>
  code === "idempotency_request_in_progress"
    ? "IdempotentRequestInProgress"
    : code.split("_").map((word) => word[0]!.toUpperCase() + word.slice(1)).join("")
