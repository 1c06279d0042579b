import type { Locale } from "@roster/domain"
import { Context, type Effect } from "effect"

export interface SignInLinkMail {
  readonly to: string
  /** The magic-link token; the adapter turns it into a link to the sign-in page. */
  readonly token: string
  readonly locale: Locale
  readonly expiresInMinutes: number
}

/** An invitation to an organization: a sign-in link that names the organization and who invited the person. */
export interface InvitationMail extends SignInLinkMail {
  readonly organizationName: string
  /** The email address of the user who invited them; `null` when an API key did. */
  readonly invitedBy: string | null
}

/** The emails of signing in, written in the recipient's language. Delivery failures are logged, not raised. */
export class AuthMail extends Context.Tag("roster/AuthMail")<AuthMail, {
  readonly sendSignInLink: (mail: SignInLinkMail) => Effect.Effect<void>
  readonly sendInvitation: (mail: InvitationMail) => Effect.Effect<void>
}>() {}
