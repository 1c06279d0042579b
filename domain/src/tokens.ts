import { Duration } from "effect"

/** Lifetimes of the tokens the service issues. */
export const MAGIC_LINK_LIFETIME = Duration.minutes(15)
export const SESSION_LIFETIME = Duration.days(7)
export const PREFERENCE_TOKEN_LIFETIME = Duration.days(30)
/** A sign-up waits this long for its confirmation, and its link is good as long. */
export const SIGN_UP_LIFETIME = Duration.days(7)
/** A form's hosted page may be sent back this long after it was shown; then it is shown again. */
export const FORM_PAGE_LIFETIME = Duration.days(1)

/** Random bytes in a magic-link token; at least 32 bytes for any signing secret. */
export const MAGIC_LINK_TOKEN_BYTES = 32
export const MIN_SIGNING_SECRET_BYTES = 32

/** Each kind of signed token has its own audience, so that none passes for another. */
export const TokenKind = {
  session: "roster:session",
  preference: "roster:preference",
  signUp: "roster:sign-up",
  formPage: "roster:form-page"
} as const
export type TokenKind = keyof typeof TokenKind

export const expiresAt = (issuedAt: Date, lifetime: Duration.Duration): Date =>
  new Date(issuedAt.getTime() + Duration.toMillis(lifetime))

export type MagicLinkState = "valid" | "expired" | "used"

/** A magic link is good once, for 15 minutes. */
export const magicLinkState = (
  link: { readonly expiresAt: Date; readonly consumedAt: Date | null },
  now: Date
): MagicLinkState => {
  if (link.consumedAt !== null) return "used"
  if (now.getTime() >= link.expiresAt.getTime()) return "expired"
  return "valid"
}
