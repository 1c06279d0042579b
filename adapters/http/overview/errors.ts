import { HttpApiSchema, HttpServerResponse } from "@effect/platform"
import { Option, Schema } from "effect"
import { errorCatalog, type ErrorCode } from "../error-catalog.js"
import { isProblem, type Problem } from "../reference/problems.js"

/**
 * The overview form's error body, `{error: {code, message, details}}`, one class per error code
 * with its status. The `code` literal tells the classes apart when they are encoded.
 */

export const ErrorDetail = Schema.Struct({
  field: Schema.String.annotations({
    description: "where the problem is: a body field (`tags[1]`), a path or query parameter, or `body` for the body as a whole"
  }),
  message: Schema.String
}).annotations({ identifier: "ErrorDetail" })
export type ErrorDetail = typeof ErrorDetail.Type

const errorFields = <C extends ErrorCode>(code: C) => ({
  error: Schema.Struct({
    code: Schema.Literal(code).annotations({ description: "what kind of error this is; the same for every occurrence" }),
    message: Schema.String.annotations({ description: "what went wrong in this occurrence" }),
    details: Schema.Array(ErrorDetail).annotations({
      description: "every field concerned, one entry per problem; empty when no field is to blame"
    })
  })
})

const errorAnnotations = (code: ErrorCode, identifier: string) => ({
  identifier,
  title: errorCatalog[code].title,
  description: `${errorCatalog[code].title} (\`${code}\`): ${errorCatalog[code].meaning}`,
  [HttpApiSchema.AnnotationStatus]: errorCatalog[code].status
})

export class ValidationError extends Schema.Class<ValidationError>("ValidationError")(
  errorFields("validation_error"),
  errorAnnotations("validation_error", "ValidationError")
) {}

export class UnauthorizedError extends Schema.Class<UnauthorizedError>("UnauthorizedError")(
  errorFields("unauthorized"),
  errorAnnotations("unauthorized", "UnauthorizedError")
) {}

export class MagicLinkExpiredError extends Schema.Class<MagicLinkExpiredError>("MagicLinkExpiredError")(
  errorFields("magic_link_expired"),
  errorAnnotations("magic_link_expired", "MagicLinkExpiredError")
) {}

export class MagicLinkAlreadyUsedError extends Schema.Class<MagicLinkAlreadyUsedError>("MagicLinkAlreadyUsedError")(
  errorFields("magic_link_already_used"),
  errorAnnotations("magic_link_already_used", "MagicLinkAlreadyUsedError")
) {}

export class InvalidTokenError extends Schema.Class<InvalidTokenError>("InvalidTokenError")(
  errorFields("invalid_token"),
  errorAnnotations("invalid_token", "InvalidTokenError")
) {}

export class LimitExceededError extends Schema.Class<LimitExceededError>("LimitExceededError")(
  errorFields("limit_exceeded"),
  errorAnnotations("limit_exceeded", "LimitExceededError")
) {}

export class ForbiddenError extends Schema.Class<ForbiddenError>("ForbiddenError")(
  errorFields("forbidden"),
  errorAnnotations("forbidden", "ForbiddenError")
) {}

export class NotFoundError extends Schema.Class<NotFoundError>("NotFoundError")(
  errorFields("not_found"),
  errorAnnotations("not_found", "NotFoundError")
) {}

export class MethodNotAllowedError extends Schema.Class<MethodNotAllowedError>("MethodNotAllowedError")(
  errorFields("method_not_allowed"),
  errorAnnotations("method_not_allowed", "MethodNotAllowedError")
) {}

export class ConflictError extends Schema.Class<ConflictError>("ConflictError")(
  errorFields("conflict"),
  errorAnnotations("conflict", "ConflictError")
) {}

export class InvalidStatusTransitionError extends Schema.Class<InvalidStatusTransitionError>("InvalidStatusTransitionError")(
  errorFields("invalid_status_transition"),
  errorAnnotations("invalid_status_transition", "InvalidStatusTransitionError")
) {}

export class IdempotentRequestInProgressError extends Schema.Class<IdempotentRequestInProgressError>("IdempotentRequestInProgressError")(
  errorFields("idempotency_request_in_progress"),
  errorAnnotations("idempotency_request_in_progress", "IdempotentRequestInProgressError")
) {}

export class IdempotencyKeyReusedError extends Schema.Class<IdempotencyKeyReusedError>("IdempotencyKeyReusedError")(
  errorFields("idempotency_key_reused"),
  errorAnnotations("idempotency_key_reused", "IdempotencyKeyReusedError")
) {}

export class PayloadTooLargeError extends Schema.Class<PayloadTooLargeError>("PayloadTooLargeError")(
  errorFields("payload_too_large"),
  errorAnnotations("payload_too_large", "PayloadTooLargeError")
) {}

export class UnsupportedMediaTypeError extends Schema.Class<UnsupportedMediaTypeError>("UnsupportedMediaTypeError")(
  errorFields("unsupported_media_type"),
  errorAnnotations("unsupported_media_type", "UnsupportedMediaTypeError")
) {}

export class RateLimitedError extends Schema.Class<RateLimitedError>("RateLimitedError")(
  errorFields("rate_limited"),
  errorAnnotations("rate_limited", "RateLimitedError")
) {}

export class InternalError extends Schema.Class<InternalError>("InternalError")(
  errorFields("internal_error"),
  errorAnnotations("internal_error", "InternalError")
) {}

export class ServiceUnavailableError extends Schema.Class<ServiceUnavailableError>("ServiceUnavailableError")(
  errorFields("service_unavailable"),
  errorAnnotations("service_unavailable", "ServiceUnavailableError")
) {}

/** The error class of each code. */
export interface ErrorOfCode {
  readonly validation_error: ValidationError
  readonly unauthorized: UnauthorizedError
  readonly magic_link_expired: MagicLinkExpiredError
  readonly magic_link_already_used: MagicLinkAlreadyUsedError
  readonly invalid_token: InvalidTokenError
  readonly limit_exceeded: LimitExceededError
  readonly forbidden: ForbiddenError
  readonly not_found: NotFoundError
  readonly method_not_allowed: MethodNotAllowedError
  readonly conflict: ConflictError
  readonly invalid_status_transition: InvalidStatusTransitionError
  readonly idempotency_request_in_progress: IdempotentRequestInProgressError
  readonly idempotency_key_reused: IdempotencyKeyReusedError
  readonly payload_too_large: PayloadTooLargeError
  readonly unsupported_media_type: UnsupportedMediaTypeError
  readonly rate_limited: RateLimitedError
  readonly internal_error: InternalError
  readonly service_unavailable: ServiceUnavailableError
}


export type OverviewError = ErrorOfCode[ErrorCode]

const classes = {
  validation_error: ValidationError,
  unauthorized: UnauthorizedError,
  magic_link_expired: MagicLinkExpiredError,
  magic_link_already_used: MagicLinkAlreadyUsedError,
  invalid_token: InvalidTokenError,
  limit_exceeded: LimitExceededError,
  forbidden: ForbiddenError,
  not_found: NotFoundError,
  method_not_allowed: MethodNotAllowedError,
  conflict: ConflictError,
  invalid_status_transition: InvalidStatusTransitionError,
  idempotency_request_in_progress: IdempotentRequestInProgressError,
  idempotency_key_reused: IdempotencyKeyReusedError,
  payload_too_large: PayloadTooLargeError,
  unsupported_media_type: UnsupportedMediaTypeError,
  rate_limited: RateLimitedError,
  internal_error: InternalError,
  service_unavailable: ServiceUnavailableError,
} as const

/** Every error class, for the API to declare. */
export const errorClasses = Object.values(classes)

const errorClassList: ReadonlyArray<new(...args: Array<any>) => OverviewError> = errorClasses

export const isOverviewError = (u: unknown): u is OverviewError => errorClassList.some((C) => u instanceof C)

/** The error of `code` with its message and details. */
export const makeError = <C extends ErrorCode>(
  code: C,
  message: string,
  details: ReadonlyArray<ErrorDetail> = []
): ErrorOfCode[C] => {
  const Class = classes[code] as unknown as new(fields: object) => ErrorOfCode[C]
  return new Class({ error: { code, message, details } })
}

const codeOfType = (type: string): ErrorCode => type.slice(type.lastIndexOf("/") + 1) as ErrorCode

/**
 * The overview error of a problem: the service speaks of its errors as problems inside, and
 * this form answers each with the same code, status and message in its own envelope.
 */
export const errorOfProblem = (problem: Problem): OverviewError =>
  makeError(codeOfType(problem.type), problem.detail, "errors" in problem ? problem.errors : [])

/** The JSON body of an error. */
export const errorBody = (error: OverviewError) => ({ error: error.error })

/** The answer of an error built outside an endpoint, as an endpoint would encode it. */
export const errorResponse = (error: OverviewError, headers: Record<string, string> = {}) =>
  HttpServerResponse.unsafeJson(errorBody(error), { status: errorCatalog[error.error.code].status, headers })

/** The answer of an error an endpoint failed with. */
export const declaredErrorAnswer = (u: unknown): Option.Option<HttpServerResponse.HttpServerResponse> =>
  isOverviewError(u) ? Option.some(errorResponse(u)) : Option.none()

/** Whether a failure is an error of this form or a problem the endpoints' middleware raised. */
export const isDeclaredFailure = (u: unknown): boolean => isOverviewError(u) || isProblem(u)
