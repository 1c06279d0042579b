import { Schema } from "effect"
import { type PlainReason, reason, reasonTextOf } from "./reason.js"
import { longerThan } from "./text.js"

/**
 * Practical email validation: what real mailboxes look like, not the whole of RFC 5321.
 * Internationalized local parts and domains (IDN) are allowed; the provider decides the rest.
 */
export const MAX_EMAIL_LENGTH = 254
export const MAX_LOCAL_PART_LENGTH = 64
const MAX_LABEL_LENGTH = 63

const whitespaceOrControl = /[\s\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u
/** Half of a surrogate pair on its own: no character at all, and not storable as UTF-8. */
const loneSurrogate = /\p{Cs}/u
const forbiddenInLocalPart = /["(),:;<>[\\\]]/
const domainLabel = /^[\p{L}\p{N}](?:[\p{L}\p{N}\p{M}-]*[\p{L}\p{N}\p{M}])?$/u

/** Why `candidate` is not a usable address, or `undefined` when it is. */
export const emailAddressReason = (candidate: string): PlainReason | undefined => {
  if (candidate.length === 0) return reason("empty")
  if (longerThan(candidate, MAX_EMAIL_LENGTH)) return reason("tooLong", { max: MAX_EMAIL_LENGTH })
  if (whitespaceOrControl.test(candidate)) return reason("emailSpaces")
  if (loneSurrogate.test(candidate)) return reason("emailUnicode")
  const parts = candidate.split("@")
  if (parts.length !== 2) return reason("emailOneAt")
  const [local, domain] = parts as [string, string]
  if (local.length === 0) return reason("emailNoLocalPart")
  if (longerThan(local, MAX_LOCAL_PART_LENGTH)) return reason("emailLocalPartTooLong", { max: MAX_LOCAL_PART_LENGTH })
  if (forbiddenInLocalPart.test(local)) return reason("emailLocalPartCharacter")
  if (local.startsWith(".") || local.endsWith(".") || local.includes("..")) return reason("emailLocalPartDots")
  if (domain.length === 0) return reason("emailNoDomain")
  const labels = domain.split(".")
  if (labels.length < 2) return reason("emailDomainDot")
  for (const label of labels) {
    if (label.length === 0) return reason("emailDomainEmptyLabel")
    if (longerThan(label, MAX_LABEL_LENGTH)) return reason("emailDomainLabelTooLong", { max: MAX_LABEL_LENGTH })
    if (!domainLabel.test(label)) return reason("emailDomainCharacter")
  }
  if (/^\d+$/.test(labels[labels.length - 1]!)) return reason("emailDomainNumber")
  return undefined
}

/** {@link emailAddressReason} in English. */
export const emailAddressProblem = (candidate: string): string | undefined => reasonTextOf(emailAddressReason(candidate))

/**
 * An email address as given, trimmed. Two addresses name the same subscriber when their
 * {@link emailKey}s are equal.
 */
export const EmailAddress = Schema.Trim.pipe(
  Schema.filter((s) => emailAddressProblem(s), {
    identifier: "EmailAddress",
    description: "an email address (IDN allowed), at most 254 characters",
    examples: ["ada@example.com"]
  }),
  Schema.brand("EmailAddress")
)
export type EmailAddress = typeof EmailAddress.Type

/**
 * The comparison key: lower case, then Unicode NFC (lower-casing can leave a sequence that NFC
 * composes, so normalizing last keeps the key stable). Email is unique per organization by this key.
 */
export const emailKey = (address: string): string => address.trim().toLowerCase().normalize("NFC")

export const isEmailAddress = Schema.is(EmailAddress)
