import { HttpApiSchema, HttpServerResponse } from "@effect/platform"
import { Schema } from "effect"
import { errorCatalog, type ErrorCode } from "../error-catalog.js"

/**
 * RFC 9457 (formerly 7807) problem details, one class per error code, each answered as
 * `application/problem+json`. `status` is a literal per class so that a problem always encodes
 * with its own status.
 */

const problemFields = <S extends number>(status: S) => ({
  type: Schema.String.annotations({
    jsonSchema: {
      type: "string",
      format: "uri",
      description: "URL of the page that documents this kind of problem; its last segment is the error code"
    }
  }),
  title: Schema.String.annotations({ description: "short summary of the kind of problem; the same for every occurrence" }),
  status: Schema.Literal(status).annotations({
    jsonSchema: { type: "integer", enum: [status], description: "the HTTP status code" }
  }),
  detail: Schema.String.annotations({ description: "what went wrong in this occurrence" }),
  instance: Schema.String.annotations({ description: "the path of the request, without its query string" })
})

const problemAnnotations = (code: ErrorCode, identifier: string) => ({
  identifier,
  title: errorCatalog[code].title,
  description: `${errorCatalog[code].title} (\`${code}\`): ${errorCatalog[code].meaning}`,
  [HttpApiSchema.AnnotationStatus]: errorCatalog[code].status,
  [HttpApiSchema.AnnotationEncoding]: { kind: "Json", contentType: "application/problem+json" }
})

export const FieldIssue = Schema.Struct({
  field: Schema.String.annotations({
    description: "where the problem is: a body field (`tags[1]`), a path or query parameter, or `body` for the body as a whole"
  }),
  message: Schema.String
}).annotations({ identifier: "FieldIssue" })
export type FieldIssue = typeof FieldIssue.Type

export class ValidationProblem extends Schema.Class<ValidationProblem>("ValidationProblem")({
  ...problemFields(400),
  errors: Schema.Array(FieldIssue).annotations({ description: "every problem found, one per field" })
}, problemAnnotations("validation_error", "ValidationProblem")) {}

export class UnauthorizedProblem extends Schema.Class<UnauthorizedProblem>("UnauthorizedProblem")(
  problemFields(401),
  problemAnnotations("unauthorized", "UnauthorizedProblem")
) {}

export class MagicLinkExpiredProblem extends Schema.Class<MagicLinkExpiredProblem>("MagicLinkExpiredProblem")(
  problemFields(401),
  problemAnnotations("magic_link_expired", "MagicLinkExpiredProblem")
) {}

export class MagicLinkAlreadyUsedProblem
  extends Schema.Class<MagicLinkAlreadyUsedProblem>("MagicLinkAlreadyUsedProblem")(
    problemFields(401),
    problemAnnotations("magic_link_already_used", "MagicLinkAlreadyUsedProblem")
  )
{}

export class InvalidTokenProblem extends Schema.Class<InvalidTokenProblem>("InvalidTokenProblem")(
  problemFields(401),
  problemAnnotations("invalid_token", "InvalidTokenProblem")
) {}

export class LimitExceededProblem extends Schema.Class<LimitExceededProblem>("LimitExceededProblem")(
  problemFields(402),
  problemAnnotations("limit_exceeded", "LimitExceededProblem")
) {}

export class ForbiddenProblem extends Schema.Class<ForbiddenProblem>("ForbiddenProblem")(
  problemFields(403),
  problemAnnotations("forbidden", "ForbiddenProblem")
) {}

export class NotFoundProblem extends Schema.Class<NotFoundProblem>("NotFoundProblem")(
  problemFields(404),
  problemAnnotations("not_found", "NotFoundProblem")
) {}

export class MethodNotAllowedProblem extends Schema.Class<MethodNotAllowedProblem>("MethodNotAllowedProblem")(
  problemFields(405),
  problemAnnotations("method_not_allowed", "MethodNotAllowedProblem")
) {}

export class ConflictProblem extends Schema.Class<ConflictProblem>("ConflictProblem")(
  problemFields(409),
  problemAnnotations("conflict", "ConflictProblem")
) {}

export class IdempotentRequestInProgressProblem
  extends Schema.Class<IdempotentRequestInProgressProblem>("IdempotentRequestInProgressProblem")(
    problemFields(409),
    problemAnnotations("idempotency_request_in_progress", "IdempotentRequestInProgressProblem")
  )
{}

export class IdempotencyKeyReusedProblem extends Schema.Class<IdempotencyKeyReusedProblem>("IdempotencyKeyReusedProblem")(
  problemFields(422),
  problemAnnotations("idempotency_key_reused", "IdempotencyKeyReusedProblem")
) {}

export class InvalidStatusTransitionProblem
  extends Schema.Class<InvalidStatusTransitionProblem>("InvalidStatusTransitionProblem")(
    problemFields(409),
    problemAnnotations("invalid_status_transition", "InvalidStatusTransitionProblem")
  )
{}

export class PayloadTooLargeProblem extends Schema.Class<PayloadTooLargeProblem>("PayloadTooLargeProblem")(
  problemFields(413),
  problemAnnotations("payload_too_large", "PayloadTooLargeProblem")
) {}

export class UnsupportedMediaTypeProblem
  extends Schema.Class<UnsupportedMediaTypeProblem>("UnsupportedMediaTypeProblem")(
    problemFields(415),
    problemAnnotations("unsupported_media_type", "UnsupportedMediaTypeProblem")
  )
{}

export class RateLimitedProblem extends Schema.Class<RateLimitedProblem>("RateLimitedProblem")(
  problemFields(429),
  problemAnnotations("rate_limited", "RateLimitedProblem")
) {}

export class InternalErrorProblem extends Schema.Class<InternalErrorProblem>("InternalErrorProblem")(
  problemFields(500),
  problemAnnotations("internal_error", "InternalErrorProblem")
) {}

export class ServiceUnavailableProblem extends Schema.Class<ServiceUnavailableProblem>("ServiceUnavailableProblem")(
  problemFields(503),
  problemAnnotations("service_unavailable", "ServiceUnavailableProblem")
) {}

/** The problem class of each error code. */
export interface ProblemOfCode {
  readonly validation_error: ValidationProblem
  readonly unauthorized: UnauthorizedProblem
  readonly magic_link_expired: MagicLinkExpiredProblem
  readonly magic_link_already_used: MagicLinkAlreadyUsedProblem
  readonly invalid_token: InvalidTokenProblem
  readonly limit_exceeded: LimitExceededProblem
  readonly forbidden: ForbiddenProblem
  readonly not_found: NotFoundProblem
  readonly method_not_allowed: MethodNotAllowedProblem
  readonly conflict: ConflictProblem
  readonly invalid_status_transition: InvalidStatusTransitionProblem
  readonly idempotency_request_in_progress: IdempotentRequestInProgressProblem
  readonly idempotency_key_reused: IdempotencyKeyReusedProblem
  readonly payload_too_large: PayloadTooLargeProblem
  readonly unsupported_media_type: UnsupportedMediaTypeProblem
  readonly rate_limited: RateLimitedProblem
  readonly internal_error: InternalErrorProblem
  readonly service_unavailable: ServiceUnavailableProblem
}

export type Problem = ProblemOfCode[ErrorCode]

const classes = {
  validation_error: ValidationProblem,
  unauthorized: UnauthorizedProblem,
  magic_link_expired: MagicLinkExpiredProblem,
  magic_link_already_used: MagicLinkAlreadyUsedProblem,
  invalid_token: InvalidTokenProblem,
  limit_exceeded: LimitExceededProblem,
  forbidden: ForbiddenProblem,
  not_found: NotFoundProblem,
  method_not_allowed: MethodNotAllowedProblem,
  conflict: ConflictProblem,
  invalid_status_transition: InvalidStatusTransitionProblem,
  idempotency_request_in_progress: IdempotentRequestInProgressProblem,
  idempotency_key_reused: IdempotencyKeyReusedProblem,
  payload_too_large: PayloadTooLargeProblem,
  unsupported_media_type: UnsupportedMediaTypeProblem,
  rate_limited: RateLimitedProblem,
  internal_error: InternalErrorProblem,
  service_unavailable: ServiceUnavailableProblem
} as const

const problemClasses: ReadonlyArray<new(...args: Array<any>) => Problem> = Object.values(classes)

export const isProblem = (u: unknown): u is Problem => problemClasses.some((C) => u instanceof C)

export interface ProblemOccurrence {
  /** Prefix of `type`, without a trailing slash. */
  readonly errorsBaseUrl: string
  /** The request path. */
  readonly instance: string
  readonly detail: string
}

/** The problem of `code` for one occurrence; validation problems list their field issues. */
export function makeProblem(
  code: "validation_error",
  occurrence: ProblemOccurrence,
  errors: ReadonlyArray<FieldIssue>
): ValidationProblem
export function makeProblem<C extends Exclude<ErrorCode, "validation_error">>(
  code: C,
  occurrence: ProblemOccurrence
): ProblemOfCode[C]
export function makeProblem(code: ErrorCode, occurrence: ProblemOccurrence, errors?: ReadonlyArray<FieldIssue>): Problem {
  const entry = errorCatalog[code]
  const fields = {
    type: `${occurrence.errorsBaseUrl}/${code}`,
    title: entry.title,
    status: entry.status,
    detail: occurrence.detail,
    instance: occurrence.instance
  }
  const Class = classes[code] as unknown as new(fields: object) => Problem
  return new Class(code === "validation_error" ? { ...fields, errors: errors ?? [] } : fields)
}

/** The JSON body of a problem, for answers built outside an endpoint. */
export const problemBody = (problem: Problem): Record<string, unknown> => ({ ...problem })

/** The answer of a problem built outside an endpoint, as an endpoint would encode it. */
export const problemResponse = (problem: Problem, headers: Record<string, string> = {}) =>
  HttpServerResponse.unsafeJson(problemBody(problem), {
    status: problem.status,
    contentType: "application/problem+json",
    headers
  })
