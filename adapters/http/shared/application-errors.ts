import type {
  DomainProviderUnavailable,
  BillingDisabled,
  BillingNotConfigured,
  IdempotencyKeyReused,
  IdempotentRequestInProgress,
  MissingScope,
  NotAMember,
  NotPlatformAdmin,
  OrganizationNotChosen,
  PaymentProviderRefused,
  PaymentProviderUnavailable,
  Principal,
  SignInRateLimited,
  SubscriptionAlreadyActive,
  Unauthenticated
} from "@roster/application"
import type {
  CampaignStateConflict,
  EmailAlreadyExists,
  InvalidInput,
  InvalidStatusTransition,
  InvalidToken,
  MagicLinkAlreadyUsed,
  MagicLinkExpired,
  OrganizationSlugTaken,
  PlanLimitExceeded,
  ResourceNotFound,
  ResourceOfAnotherOrganization,
  TagAlreadyExists,
  TagLimitReached,
  PlanFeatureUnavailable,
  SendingDomainTaken,
  SendingDomainExists,
  NoSendingDomain,
  UploadTooLarge
} from "@roster/domain"
import { type ApiError, apiError } from "./api-error.js"

/** The one mapping of the use cases' errors to the errors the service answers, in every wire form. */

export type ApplicationError =
  | MissingScope
  | NotPlatformAdmin
  | ResourceNotFound
  | ResourceOfAnotherOrganization
  | EmailAlreadyExists
  | TagAlreadyExists
  | TagLimitReached
  | PlanLimitExceeded
  | InvalidInput
  | InvalidStatusTransition
  | OrganizationSlugTaken
  | Unauthenticated
  | OrganizationNotChosen
  | NotAMember
  | SignInRateLimited
  | MagicLinkExpired
  | MagicLinkAlreadyUsed
  | InvalidToken
  | IdempotencyKeyReused
  | IdempotentRequestInProgress
  | CampaignStateConflict
  | PlanFeatureUnavailable
  | SendingDomainTaken
  | SendingDomainExists
  | NoSendingDomain
  | DomainProviderUnavailable
  | BillingDisabled
  | BillingNotConfigured
  | PaymentProviderUnavailable
  | PaymentProviderRefused
  | SubscriptionAlreadyActive
  | UploadTooLarge

/** The header a session names its organization with. */
export const ORGANIZATION_HEADER = "X-Organization-Id"

/** The code each error is answered with, so that an endpoint declares exactly what it can answer. */
export type CodeOf<E> = E extends MissingScope | NotPlatformAdmin | ResourceOfAnotherOrganization | NotAMember ? "forbidden"
  : E extends ResourceNotFound ? "not_found"
  : E extends EmailAlreadyExists | TagAlreadyExists | OrganizationSlugTaken | CampaignStateConflict ? "conflict"
  : E extends InvalidStatusTransition ? "invalid_status_transition"
  : E extends PlanLimitExceeded ? "limit_exceeded"
  : E extends TagLimitReached ? "tag_limit_reached"
  : E extends InvalidInput | OrganizationNotChosen ? "validation_error"
  : E extends Unauthenticated ? "unauthorized"
  : E extends SignInRateLimited ? "rate_limited"
  : E extends MagicLinkExpired ? "magic_link_expired"
  : E extends MagicLinkAlreadyUsed ? "magic_link_already_used"
  : E extends InvalidToken ? "invalid_token"
  : E extends IdempotencyKeyReused ? "idempotency_key_reused"
  : E extends IdempotentRequestInProgress ? "idempotency_request_in_progress"
  : E extends PlanFeatureUnavailable ? "limit_exceeded"
  : E extends SendingDomainTaken | SendingDomainExists ? "conflict"
  : E extends NoSendingDomain ? "not_found"
  : E extends DomainProviderUnavailable ? "service_unavailable"
  : E extends SubscriptionAlreadyActive ? "conflict"
  : E extends BillingDisabled ? "billing_disabled"
  : E extends BillingNotConfigured ? "billing_not_configured"
  : E extends PaymentProviderUnavailable ? "payment_provider_unavailable"
  : E extends PaymentProviderRefused ? "payment_provider_error"
  : E extends UploadTooLarge ? "payload_too_large"
  : never

/** Who lacks a scope, in the words of their credential. */
const lacksScope = (scope: string, credential: Principal["credential"] | undefined): string =>
  credential?.kind === "session"
    ? `the ${credential.role} role does not allow this; it needs the scope ${scope}, which only owners hold`
    : `this API key lacks the scope ${scope}`

const describe = (error: ApplicationError, credential: Principal["credential"] | undefined): ApiError => {
  switch (error._tag) {
    case "MissingScope":
      return apiError("forbidden", lacksScope(error.scope, credential))
    case "NotPlatformAdmin":
      return apiError(
        "forbidden",
        "administration needs a platform-admin organization, acting with the scope * " +
          "(an API key with *, or an owner's session)"
      )
    case "ResourceOfAnotherOrganization":
      // Nothing of the resource is told beyond the id the client sent.
      return apiError("forbidden", "the resource belongs to another organization")
    case "ResourceNotFound":
    case "CampaignStateConflict":
    case "EmailAlreadyExists":
    case "TagAlreadyExists":
    case "OrganizationSlugTaken":
    case "PlanLimitExceeded":
    case "MagicLinkExpired":
    case "MagicLinkAlreadyUsed":
    case "IdempotencyKeyReused":
    case "IdempotentRequestInProgress":
    case "PlanFeatureUnavailable":
    case "SendingDomainTaken":
    case "SendingDomainExists":
    case "NoSendingDomain":
      return apiError(codeOfTag[error._tag], error.message)
    case "DomainProviderUnavailable":
      return apiError(
        "service_unavailable",
        "the email provider cannot be reached at the moment; nothing was changed, try again shortly",
        { headers: { "Retry-After": String(Math.max(1, Math.ceil((error.retryAfterMs ?? 30_000) / 1000))) } }
      )
    case "InvalidStatusTransition":
      return apiError(
        "invalid_status_transition",
        `status: a subscriber cannot move from ${error.from} to ${error.to} through the API`
      )
    case "InvalidInput":
      return apiError("validation_error", error.message, { fields: [{ field: error.field, message: error.problem }] })
    case "TagLimitReached":
      return apiError("tag_limit_reached", error.message, { fields: [{ field: error.field, message: error.problem }] })
    case "Unauthenticated":
      return apiError("unauthorized", error.reason)
    case "OrganizationNotChosen": {
      const message = "is required with a session cookie: the id of an organization you are a member of"
      return apiError("validation_error", `${ORGANIZATION_HEADER}: ${message}`, {
        fields: [{ field: ORGANIZATION_HEADER, message }]
      })
    }
    case "NotAMember":
      // The same answer whether the organization exists or not.
      return apiError("forbidden", `you are not a member of the organization named in ${ORGANIZATION_HEADER}`)
    case "SignInRateLimited":
      return apiError(
        "rate_limited",
        `too many sign-in links were asked for; try again in ${error.retryAfterSeconds} seconds`,
        { headers: { "Retry-After": String(error.retryAfterSeconds) } }
      )
    case "InvalidToken":
      return apiError("invalid_token", error.reason)
    case "SubscriptionAlreadyActive":
      return apiError("conflict", error.message)
    case "BillingDisabled":
      return apiError("billing_disabled", error.message)
    case "BillingNotConfigured":
      return apiError("billing_not_configured", error.message)
    case "PaymentProviderUnavailable":
      // The provider's own words stay in the log.
      return apiError(
        "payment_provider_unavailable",
        "the payment provider cannot be reached at the moment; nothing was changed, try again shortly"
      )
    case "PaymentProviderRefused":
      return apiError("payment_provider_error", error.message)
    case "UploadTooLarge":
      return apiError(
        "payload_too_large",
        `the file is larger than ${error.maxBytes} bytes (${sizeInWords(error.maxBytes)}), the most an import takes; ` +
          "nothing of it was kept. Split it into smaller files"
      )
  }
}

/** A size as people say it: `100 MiB`, `1.5 KiB`, `512 bytes`. */
const sizeInWords = (bytes: number): string => {
  const units = [["GiB", 1024 ** 3], ["MiB", 1024 ** 2], ["KiB", 1024]] as const
  for (const [unit, size] of units) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(1))} ${unit}`
  }
  return `${bytes} bytes`
}

const codeOfTag = {
  ResourceNotFound: "not_found",
  CampaignStateConflict: "conflict",
  EmailAlreadyExists: "conflict",
  TagAlreadyExists: "conflict",
  OrganizationSlugTaken: "conflict",
  PlanLimitExceeded: "limit_exceeded",
  MagicLinkExpired: "magic_link_expired",
  MagicLinkAlreadyUsed: "magic_link_already_used",
  IdempotencyKeyReused: "idempotency_key_reused",
  IdempotentRequestInProgress: "idempotency_request_in_progress",
  PlanFeatureUnavailable: "limit_exceeded",
  SendingDomainTaken: "conflict",
  SendingDomainExists: "conflict",
  NoSendingDomain: "not_found"
} as const

/** The error a use case's failure is answered with; a missing scope is told in the words of the credential. */
export const apiErrorOf = <E extends ApplicationError>(error: E, credential?: Principal["credential"]): ApiError<CodeOf<E>> =>
  describe(error, credential) as ApiError<CodeOf<E>>
