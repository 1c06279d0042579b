import { Schema } from "effect"
import { OrganizationId } from "./ids.js"
import { longerThan } from "./text.js"

/**
 * How an organization's email is sent. `fromName` is the display name of every From header (the
 * organization's name when unset); `fromAddress` needs a verified custom domain and stays unset
 * until one exists.
 */
export class EmailSettings extends Schema.Class<EmailSettings>("EmailSettings")({
  organizationId: OrganizationId,
  fromName: Schema.NullOr(Schema.String),
  fromAddress: Schema.NullOr(Schema.String),
  updatedAt: Schema.DateFromSelf
}) {}

/** The address of a mailbox written `Name <address>` or bare. */
export const mailboxAddress = (mailbox: string): string => {
  const angled = /<([^<>]*)>\s*$/.exec(mailbox)
  return (angled === null ? mailbox : angled[1]!).trim()
}

/**
 * A From header: the display name as an RFC 5322 quoted string (so commas, quotes and angle
 * brackets in a name never change the address), then the address.
 */
export const formatMailbox = (displayName: string, address: string): string => {
  const name = displayName.replace(/[\r\n]+/g, " ").trim()
  if (name === "") return address
  return `"${name.replace(/[\\"]/g, (c) => `\\${c}`)}" <${address}>`
}

/**
 * The From header of an organization's email: its own address once a custom domain allows one,
 * else the service's default address; its display name, else the organization's name.
 */
export const effectiveFrom = (
  settings: { readonly fromName: string | null; readonly fromAddress: string | null },
  organizationName: string,
  defaultFrom: string
): string => formatMailbox(settings.fromName ?? organizationName, settings.fromAddress ?? mailboxAddress(defaultFrom))

export const MAX_FROM_NAME_LENGTH = 100

/** A sender's display name: one line of plain text that no header can be smuggled into. */
export const FromName = Schema.Trim.pipe(
  Schema.filter((s) => {
    if (s.length === 0) return "must not be empty; send null to use the organization's name"
    if (longerThan(s, MAX_FROM_NAME_LENGTH)) return `must be at most ${MAX_FROM_NAME_LENGTH} characters`
    if (/[\p{Cc}\u2028\u2029]/u.test(s)) return "must be one line without control characters"
    if (/[\uD800-\uDFFF]/.test(s.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, ""))) return "must be valid Unicode text"
    return true
  }, { identifier: "FromName" })
)
