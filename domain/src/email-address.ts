import { Schema } from "effect"
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
export const emailAddressProblem = (candidate: string): string | undefined => {
  if (candidate.length === 0) return "must not be empty"
  if (longerThan(candidate, MAX_EMAIL_LENGTH)) return `must be at most ${MAX_EMAIL_LENGTH} characters`
  if (whitespaceOrControl.test(candidate)) return "must not contain spaces or control characters"
  if (loneSurrogate.test(candidate)) return "must be valid Unicode text"
  const parts = candidate.split("@")
  if (parts.length !== 2) return "must contain exactly one @"
  const [local, domain] = parts as [string, string]
  if (local.length === 0) return "must have a local part before the @"
  if (longerThan(local, MAX_LOCAL_PART_LENGTH)) return `local part must be at most ${MAX_LOCAL_PART_LENGTH} characters`
  if (forbiddenInLocalPart.test(local)) return "local part contains a character that is not allowed"
  if (local.startsWith(".") || local.endsWith(".") || local.includes("..")) {
    return "local part must not start or end with a dot or contain two dots in a row"
  }
  if (domain.length === 0) return "must have a domain after the @"
  const labels = domain.split(".")
  if (labels.length < 2) return "domain must contain a dot"
  for (const label of labels) {
    if (label.length === 0) return "domain must not have empty labels"
    if (longerThan(label, MAX_LABEL_LENGTH)) return `domain labels must be at most ${MAX_LABEL_LENGTH} characters`
    if (!domainLabel.test(label)) return "domain contains a character that is not allowed"
  }
  if (/^\d+$/.test(labels[labels.length - 1]!)) return "domain must end in a name, not a number"
  return undefined
}

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
