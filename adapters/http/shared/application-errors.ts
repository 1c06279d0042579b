import type {
  BillingDisabled,
  BillingNotConfigured,
  DomainProviderUnavailable,
  IdempotencyKeyReused,
  IdempotentRequestInProgress,
  LastOwner,
  MemberAlreadyExists,
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
  SequenceStateConflict,
  EmailAlreadyExists,
  InvalidInput,
  InvalidStatusTransition,
  InvalidToken,
  MagicLinkAlreadyUsed,
  MagicLinkExpired,
  NoSendingDomain,
  OrganizationSlugTaken,
  PlanFeatureUnavailable,
  PlanLimitExceeded,
  ResourceNotFound,
  ResourceOfAnotherOrganization,
  SegmentInUse,
  SendingDomainExists,
  SendingDomainTaken,
  TagAlreadyExists,
  TagLimitReached,
  UploadTooLarge
} from "@roster/domain"
import { type ApiError, apiError, type FieldIssue } from "./api-error.js"
import type { ErrorCode } from "./error-catalog.js"

/** The header a session names its organization with. */
export const ORGANIZATION_HEADER = "X-Organization-Id"

type Credential = Principal["credential"]

/**
 * How one error of the use cases is answered: its code (which fixes the status, error-catalog.ts)
 * and its words; the fields and headers that go with it, if any.
 */
interface Answer<E, C extends ErrorCode> {
  readonly code: C
  readonly detail: (error: E, credential: Credential | undefined) => string
  readonly fields?: (error: E) => ReadonlyArray<FieldIssue>
  readonly headers?: (error: E) => Readonly<Record<string, string>>
}

/** The error's own message, for errors whose words are fit for a client as they are. */
const itsMessage = <E extends { readonly message: string }>(error: E): string => error.message

/** Who lacks a scope, in the words of their credential. */
const lacksScope = (scope: string, credential: Credential | undefined): string =>
  credential?.kind === "session"
    ? `the ${credential.role} role does not allow this; it needs the scope ${scope}, which only owners hold`
    : `this API key lacks the scope ${scope}`

/** A size as people say it: `100 MiB`, `1.5 KiB`, `512 bytes`. */
const sizeInWords = (bytes: number): string => {
  const units = [["GiB", 1024 ** 3], ["MiB", 1024 ** 2], ["KiB", 1024]] as const
  for (const [unit, size] of units) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(1))} ${unit}`
  }
  return `${bytes} bytes`
}

const chosenOrganizationMessage = "is required with a session cookie: the id of an organization you are a member of"

/**
 * The one table of the use cases' errors and how every wire form answers them, a row an error
 * keyed by its `_tag`. Adding an error the use cases fail with is adding its row.
 */
const applicationErrors = {
  MissingScope: {
    code: "forbidden",
    detail: (error: MissingScope, credential) => lacksScope(error.scope, credential)
  },
  NotPlatformAdmin: {
    code: "forbidden",
    detail: (_: NotPlatformAdmin) =>
      "administration needs a platform-admin organization, acting with the scope * " +
      "(an API key with *, or an owner's session)"
  },
  // Nothing of the resource is told beyond the id the client sent.
  ResourceOfAnotherOrganization: {
    code: "forbidden",
    detail: (_: ResourceOfAnotherOrganization) => "the resource belongs to another organization"
  },
  // The same answer whether the organization exists or not.
  NotAMember: {
    code: "forbidden",
    detail: (_: NotAMember) => `you are not a member of the organization named in ${ORGANIZATION_HEADER}`
  },
  ResourceNotFound: { code: "not_found", detail: itsMessage<ResourceNotFound> },
  NoSendingDomain: { code: "not_found", detail: itsMessage<NoSendingDomain> },
  EmailAlreadyExists: { code: "conflict", detail: itsMessage<EmailAlreadyExists> },
  TagAlreadyExists: { code: "conflict", detail: itsMessage<TagAlreadyExists> },
  OrganizationSlugTaken: { code: "conflict", detail: itsMessage<OrganizationSlugTaken> },
  CampaignStateConflict: { code: "conflict", detail: itsMessage<CampaignStateConflict> },
  SegmentInUse: { code: "conflict", detail: itsMessage<SegmentInUse> },
  SequenceStateConflict: { code: "conflict", detail: itsMessage<SequenceStateConflict> },
  SendingDomainTaken: { code: "conflict", detail: itsMessage<SendingDomainTaken> },
  SendingDomainExists: { code: "conflict", detail: itsMessage<SendingDomainExists> },
  SubscriptionAlreadyActive: { code: "conflict", detail: itsMessage<SubscriptionAlreadyActive> },
  MemberAlreadyExists: { code: "member_already_exists", detail: itsMessage<MemberAlreadyExists> },
  LastOwner: { code: "last_owner", detail: itsMessage<LastOwner> },
  InvalidStatusTransition: {
    code: "invalid_status_transition",
    detail: (error: InvalidStatusTransition) =>
      `status: a subscriber cannot move from ${error.from} to ${error.to} through the API`
  },
  PlanLimitExceeded: { code: "limit_exceeded", detail: itsMessage<PlanLimitExceeded> },
  PlanFeatureUnavailable: { code: "limit_exceeded", detail: itsMessage<PlanFeatureUnavailable> },
  TagLimitReached: {
    code: "tag_limit_reached",
    detail: itsMessage<TagLimitReached>,
    fields: (error: TagLimitReached) => [{ field: error.field, message: error.problem }]
  },
  InvalidInput: {
    code: "validation_error",
    detail: itsMessage<InvalidInput>,
    fields: (error: InvalidInput) => [{ field: error.field, message: error.problem }]
  },
  OrganizationNotChosen: {
    code: "validation_error",
    detail: (_: OrganizationNotChosen) => `${ORGANIZATION_HEADER}: ${chosenOrganizationMessage}`,
    fields: (_: OrganizationNotChosen) => [{ field: ORGANIZATION_HEADER, message: chosenOrganizationMessage }]
  },
  Unauthenticated: { code: "unauthorized", detail: (error: Unauthenticated) => error.reason },
  SignInRateLimited: {
    code: "rate_limited",
    detail: (error: SignInRateLimited) =>
      `too many sign-in links were asked for; try again in ${error.retryAfterSeconds} seconds`,
    headers: (error: SignInRateLimited) => ({ "Retry-After": String(error.retryAfterSeconds) })
  },
  MagicLinkExpired: { code: "magic_link_expired", detail: itsMessage<MagicLinkExpired> },
  MagicLinkAlreadyUsed: { code: "magic_link_already_used", detail: itsMessage<MagicLinkAlreadyUsed> },
  InvalidToken: { code: "invalid_token", detail: (error: InvalidToken) => error.reason },
  IdempotencyKeyReused: { code: "idempotency_key_reused", detail: itsMessage<IdempotencyKeyReused> },
  IdempotentRequestInProgress: {
    code: "idempotency_request_in_progress",
    detail: itsMessage<IdempotentRequestInProgress>
  },
  DomainProviderUnavailable: {
    code: "service_unavailable",
    detail: (_: DomainProviderUnavailable) =>
      "the email provider cannot be reached at the moment; nothing was changed, try again shortly",
    headers: (error: DomainProviderUnavailable) => ({
      "Retry-After": String(Math.max(1, Math.ceil((error.retryAfterMs ?? 30_000) / 1000)))
    })
  },
  BillingDisabled: { code: "billing_disabled", detail: itsMessage<BillingDisabled> },
  BillingNotConfigured: { code: "billing_not_configured", detail: itsMessage<BillingNotConfigured> },
  // The provider's own words stay in the log.
  PaymentProviderUnavailable: {
    code: "payment_provider_unavailable",
    detail: (_: PaymentProviderUnavailable) =>
      "the payment provider cannot be reached at the moment; nothing was changed, try again shortly"
  },
  PaymentProviderRefused: { code: "payment_provider_error", detail: itsMessage<PaymentProviderRefused> },
  UploadTooLarge: {
    code: "payload_too_large",
    detail: (error: UploadTooLarge) =>
      `the file is larger than ${error.maxBytes} bytes (${sizeInWords(error.maxBytes)}), the most an import takes; ` +
      "nothing of it was kept. Split it into smaller files"
  }
} as const satisfies Record<string, Answer<never, ErrorCode>>

type Table = typeof applicationErrors

/** Every error the use cases fail with: the errors of the table's rows. */
export type ApplicationError = { [Tag in keyof Table]: Parameters<Table[Tag]["detail"]>[0] }[keyof Table]

/** The code each error is answered with, so that an endpoint declares exactly what it can answer. */
export type CodeOf<E extends ApplicationError> = E extends { readonly _tag: infer Tag extends keyof Table }
  ? Table[Tag]["code"]
  : never

/** Each row stands under its error's own `_tag`. */
type Misfiled = { [Tag in keyof Table]: Parameters<Table[Tag]["detail"]>[0] extends { readonly _tag: Tag } ? never : Tag }[
  keyof Table
]
const rowsUnderTheirTags: [Misfiled] extends [never] ? true : Misfiled = true
void rowsUnderTheirTags

/** The error a use case's failure is answered with; a missing scope is told in the words of the credential. */
export const apiErrorOf = <E extends ApplicationError>(error: E, credential?: Credential): ApiError<CodeOf<E>> => {
  const answer = applicationErrors[error._tag] as unknown as Answer<E, CodeOf<E>>
  return apiError(answer.code, answer.detail(error, credential), {
    fields: answer.fields?.(error),
    headers: answer.headers?.(error)
  })
}
