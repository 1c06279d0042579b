import { Schema } from "effect"
import { type Reason, reason, reasonTextOf } from "./reason.js"
import { OrganizationId } from "./ids.js"

/**
 * A custom sending domain: the domain an organization on the top plan sends from once the email
 * provider has verified it through DNS. `pending` from the moment it is added until the provider
 * sees its DNS records (`verified`) or gives up looking (`failed`).
 */
export const SendingDomainStatus = Schema.Literal("pending", "verified", "failed")
export type SendingDomainStatus = typeof SendingDomainStatus.Type

/** One DNS record the organization adds at its DNS host, as the provider tells it. */
export class DnsRecord extends Schema.Class<DnsRecord>("DnsRecord")({
  /** What the record is for: `SPF`, `DKIM`, `Tracking`... */
  record: Schema.String,
  /** The host, relative to the domain (`send`, `resend._domainkey`). */
  name: Schema.String,
  type: Schema.String,
  value: Schema.String,
  /** `Auto`, or seconds. */
  ttl: Schema.String,
  /** MX records only. */
  priority: Schema.NullOr(Schema.Number),
  /** Whether the provider has seen it: `not_started`, `pending`, `verified`, `failed`... */
  status: Schema.String
}) {}

export class SendingDomain extends Schema.Class<SendingDomain>("SendingDomain")({
  organizationId: OrganizationId,
  /** The domain, lower case (`news.acme.example`). */
  name: Schema.String,
  /** The provider's id of the domain. */
  providerId: Schema.String,
  status: SendingDomainStatus,
  records: Schema.Array(DnsRecord),
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf,
  /** When the provider was last asked; `null` before the first check. */
  checkedAt: Schema.NullOr(Schema.DateFromSelf),
  verifiedAt: Schema.NullOr(Schema.DateFromSelf),
  /** When the worker asks the provider again; `null` once the domain is verified or failed. */
  nextCheckAt: Schema.NullOr(Schema.DateFromSelf)
}) {}

const MAX_DOMAIN_LENGTH = 253
const MAX_LABEL_LENGTH = 63
const ldhLabel = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/

/** A domain as stored and compared: trimmed, lower case, without a final dot. */
export const normalizeDomain = (candidate: string): string => candidate.trim().toLowerCase().replace(/\.$/, "")

/**
 * Why `domain` (normalized) is not a host name email can be sent from, or `undefined`: letters,
 * digits and hyphens in dot-separated labels, at least two of them, ending in a name. An
 * internationalized name is written in its `xn--` form, as DNS holds it.
 */
export const sendingDomainReason = (domain: string): Reason | undefined => {
  if (domain.length === 0) return reason("empty")
  if (domain.length > MAX_DOMAIN_LENGTH) return reason("tooLong", { max: MAX_DOMAIN_LENGTH })
  if (/[^\x21-\x7e]/.test(domain)) {
    return reason("domainAscii")
  }
  if (/[/:@?#]/.test(domain)) return reason("domainHostOnly")
  const labels = domain.split(".")
  if (labels.length < 2) return reason("domainDot")
  for (const label of labels) {
    if (label.length === 0) return reason("domainEmptyLabel")
    if (label.length > MAX_LABEL_LENGTH) return reason("domainLabelTooLong", { max: MAX_LABEL_LENGTH })
    if (!ldhLabel.test(label)) {
      return reason("domainLabelCharacters")
    }
  }
  if (/^\d+$/.test(labels[labels.length - 1]!)) return reason("domainIpAddress")
  return undefined
}

/** {@link sendingDomainReason} in English. */
export const sendingDomainProblem = (domain: string): string | undefined => reasonTextOf(sendingDomainReason(domain))

/** Whether `domain` is `parent` or one of its subdomains. */
export const isWithinDomain = (domain: string, parent: string): boolean =>
  domain === parent || domain.endsWith(`.${parent}`)

/** The domain of an address, lower case. */
export const domainOfAddress = (address: string): string => normalizeDomain(address.slice(address.lastIndexOf("@") + 1))

/**
 * The sending address an organization may use now: its own `fromAddress` while its plan allows a
 * custom domain and that domain is verified, or when it is the service's default address; else
 * `null` (the default address).
 */
export const senderAddressInUse = (
  fromAddress: string | null,
  context: {
    /** Whether the organization may send from a domain of its own (LimitPolicy.customSendingDomain). */
    readonly customSendingDomain: boolean
    readonly domain: Pick<SendingDomain, "name" | "status"> | null
    readonly defaultAddress: string
  }
): string | null => {
  if (fromAddress === null) return null
  if (fromAddress.toLowerCase() === context.defaultAddress.toLowerCase()) return fromAddress
  const { domain } = context
  return context.customSendingDomain && domain !== null && domain.status === "verified" &&
      domainOfAddress(fromAddress) === domain.name
    ? fromAddress
    : null
}

const MINUTE_MS = 60_000

/**
 * How long after a check that found a domain still pending the next one comes: a quarter of the
 * domain's age, at least a minute and at most an hour. Soon after it is added (while its owner
 * is adding DNS records) the provider is asked often; a domain left pending for days, hourly.
 */
export const nextCheckDelayMs = (createdAt: Date, at: Date): number =>
  Math.min(60 * MINUTE_MS, Math.max(MINUTE_MS, Math.round((at.getTime() - createdAt.getTime()) / 4)))
