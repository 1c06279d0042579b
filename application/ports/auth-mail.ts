import type { Locale } from "@roster/domain"
import { Context, type Effect } from "effect"

export interface SignInLinkMail {
  readonly to: string
  /** The magic-link token; the adapter turns it into a link to the sign-in page. */
  readonly token: string
  readonly locale: Locale
  readonly expiresInMinutes: number
}

/** The emails of signing in, written in the recipient's language. Delivery failures are logged, not raised. */
export class AuthMail extends Context.Tag("roster/AuthMail")<AuthMail, {
  readonly sendSignInLink: (mail: SignInLinkMail) => Effect.Effect<void>
}>() {}
