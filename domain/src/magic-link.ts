import { Schema } from "effect"
import { EmailAddress } from "./email-address.js"

/** Languages of the emails and pages a person sees. */
export const Locale = Schema.Literal("en", "de")
export type Locale = typeof Locale.Type
export const DEFAULT_LOCALE: Locale = "en"

/**
 * A single-use sign-in link. Only the SHA-256 of its token is kept; it is good for 15 minutes
 * (`expiresAt`) and once (`consumedAt`).
 */
export class MagicLink extends Schema.Class<MagicLink>("MagicLink")({
  tokenHash: Schema.String,
  email: EmailAddress,
  locale: Locale,
  createdAt: Schema.DateFromSelf,
  expiresAt: Schema.DateFromSelf,
  consumedAt: Schema.NullOr(Schema.DateFromSelf)
}) {}

/** How often a sign-in link may be asked for: per address and per client address. */
export const MAGIC_LINK_REQUEST_LIMITS = {
  perEmail: { requests: 5, windowMs: 15 * 60_000 },
  perIp: { requests: 30, windowMs: 15 * 60_000 }
} as const
