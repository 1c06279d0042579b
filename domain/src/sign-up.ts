import { Schema } from "effect"
import { EmailAddress } from "./email-address.js"
import { ApiKeyId, ConsentId, FormId, OrganizationId, SignUpId, SubscriberId, TagId } from "./ids.js"
import { Locale } from "./magic-link.js"
import { Metadata } from "./metadata.js"
import type { SubscriberStatus } from "./subscriber.js"

/**
 * What a kept sign-up waits for: `confirmation` of a new address, or, for an address already
 * subscribed, nothing but the `already_subscribed` email (which carries no confirmation link).
 */
export const SignUpKind = Schema.Literal("confirmation", "already_subscribed")
export type SignUpKind = typeof SignUpKind.Type

/**
 * A sign-up through a form, or through the API with double opt-in, that waits for its
 * confirmation: not a subscriber, not counted against the plan. Its confirmation link is a signed
 * token naming the sign-up and `tokenId`; a new token (a later submission, once the mail interval
 * passed) replaces the old one. The email waits for the worker while `mailDueAt` is set.
 *
 * A sign-up of an address already subscribed is kept too, of kind `already_subscribed`: it holds
 * when the last email went to the address, so that it is told at most once in the mail interval.
 */
export class PendingSignUp extends Schema.Class<PendingSignUp>("PendingSignUp")({
  id: SignUpId,
  organizationId: OrganizationId,
  /** The form it came through; `null` for a sign-up through the API. */
  formId: Schema.NullOr(FormId),
  /** The API key that asked for it, when one did. */
  apiKeyId: Schema.NullOr(ApiKeyId),
  kind: SignUpKind,
  /** Tags the subscriber gets on confirming, beside a form's own (the API's sign-ups name theirs). */
  tagIds: Schema.Array(TagId),
  /** Metadata the subscriber is made with on confirming (the API's sign-ups). */
  metadata: Metadata,
  email: EmailAddress,
  firstName: Schema.NullOr(Schema.String),
  lastName: Schema.NullOr(Schema.String),
  locale: Locale,
  tokenId: Schema.String,
  /** The form's consent text as the reader saw it, or the text the API said they agreed to. */
  consentText: Schema.NullOr(Schema.String),
  /** The reader's client address, cut to its network (/24 or /48). */
  clientAddress: Schema.NullOr(Schema.String),
  userAgent: Schema.NullOr(Schema.String),
  createdAt: Schema.DateFromSelf,
  expiresAt: Schema.DateFromSelf,
  mailDueAt: Schema.NullOr(Schema.DateFromSelf),
  lastMailAt: Schema.NullOr(Schema.DateFromSelf),
  confirmedAt: Schema.NullOr(Schema.DateFromSelf)
}) {}

/**
 * What a subscriber agreed to, and where: kept while the subscriber is (also after they
 * unsubscribe), and erased with them.
 */
export class Consent extends Schema.Class<Consent>("Consent")({
  id: ConsentId,
  organizationId: OrganizationId,
  subscriberId: SubscriberId,
  /** The form they joined through; `null` when an API key recorded the consent or the form is gone. */
  formId: Schema.NullOr(FormId),
  /** The API key that recorded it, when one did. */
  apiKeyId: Schema.NullOr(ApiKeyId),
  text: Schema.NullOr(Schema.String),
  clientAddress: Schema.NullOr(Schema.String),
  userAgent: Schema.NullOr(Schema.String),
  agreedAt: Schema.DateFromSelf,
  confirmedAt: Schema.NullOr(Schema.DateFromSelf)
}) {}

/** At most one confirmation email per address and form in this many milliseconds. */
export const CONFIRMATION_MAIL_INTERVAL_MS = 10 * 60_000

/** A form sent back sooner than this after its page was shown is a robot's. */
export const MIN_FORM_FILL_MS = 2_000

/** The most characters of a user agent kept with a consent. */
export const MAX_USER_AGENT_LENGTH = 512

/** What becomes of a submission for an address, by what the organization knows of it. */
export type SignUpCollision =
  /** No subscriber yet, or one who unsubscribed: the sign-up goes ahead. */
  | "proceed"
  /** Already subscribed: no second record. */
  | "already_subscribed"
  /** A bounced or complained address: nothing is sent to it. */
  | "undeliverable"

/** The collision rule: an active subscriber stays as is, a bounced or complained address is mailed nothing. */
export const signUpCollision = (status: SubscriberStatus | undefined): SignUpCollision => {
  if (status === undefined || status === "unsubscribed") return "proceed"
  if (status === "active") return "already_subscribed"
  return "undeliverable"
}

/** Whether a new confirmation email may go out for a sign-up last mailed at `lastMailAt`. */
export const mayMailAgain = (lastMailAt: Date | null, at: Date): boolean =>
  lastMailAt === null || at.getTime() - lastMailAt.getTime() >= CONFIRMATION_MAIL_INTERVAL_MS

/**
 * Whether a submission looks like a robot's: its hidden field filled in, or sent back sooner than
 * a person could fill the form in (`shownAt` is when the page was shown, when known).
 */
export const looksAutomated = (honeypot: string | undefined, shownAt: Date | undefined, at: Date): boolean =>
  (honeypot !== undefined && honeypot.trim() !== "") ||
  (shownAt !== undefined && at.getTime() - shownAt.getTime() < MIN_FORM_FILL_MS)

const ipv4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/

/** The eight groups of an IPv6 address, or `undefined` when it is not one. */
const ipv6Groups = (address: string): ReadonlyArray<number> | undefined => {
  const halves = address.split("::")
  if (halves.length > 2) return undefined
  const parse = (part: string) => part === "" ? [] : part.split(":")
  const head = parse(halves[0]!)
  const tail = halves.length === 2 ? parse(halves[1]!) : []
  const missing = 8 - head.length - tail.length
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined
  const groups = [...head, ...Array.from({ length: halves.length === 2 ? missing : 0 }, () => "0"), ...tail]
  if (!groups.every((g) => /^[0-9a-f]{1,4}$/i.test(g))) return undefined
  return groups.map((g) => parseInt(g, 16))
}

/**
 * A client address cut to its network, as consent records keep it: an IPv4 address to its /24
 * (`203.0.113.0`), an IPv6 address to its /48 (`2001:db8:1::`); an IPv4 address mapped into IPv6
 * as the IPv4 one. Anything else is not kept (`null`).
 */
export const truncateClientAddress = (address: string): string | null => {
  const trimmed = address.trim().replace(/^::ffff:(?=\d+\.)/i, "")
  const four = ipv4.exec(trimmed)
  if (four !== null) {
    const parts = four.slice(1, 4).map(Number)
    if (parts.some((p) => p > 255) || Number(four[4]) > 255) return null
    return `${parts.join(".")}.0`
  }
  const groups = ipv6Groups(trimmed.replace(/%.*$/, ""))
  if (groups === undefined) return null
  return `${groups.slice(0, 3).map((g) => g.toString(16)).join(":")}::`
}

/** A user agent as kept: at most {@link MAX_USER_AGENT_LENGTH} characters, `null` when there is none. */
export const keptUserAgent = (userAgent: string | undefined): string | null => {
  const trimmed = userAgent?.trim() ?? ""
  return trimmed === "" ? null : trimmed.slice(0, MAX_USER_AGENT_LENGTH)
}
