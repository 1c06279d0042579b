import { Context, type Effect, Schema } from "effect"

export interface OutgoingEmail {
  readonly to: string
  /** `Name <address>`; the configured default sender when absent. */
  readonly from?: string | undefined
  readonly subject: string
  readonly html: string
  readonly text: string
  /** The same key sends the same email at most once, where the provider supports it. */
  readonly idempotencyKey?: string | undefined
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/** The provider refused or could not take an email. `retryable` when trying again later may work. */
export class MailerError extends Schema.TaggedError<MailerError>()("MailerError", {
  reason: Schema.String,
  retryable: Schema.Boolean
}) {
  override get message() {
    return this.reason
  }
}

/** Hands emails to the delivery provider. */
export class Mailer extends Context.Tag("roster/Mailer")<Mailer, {
  /** The provider's id of the accepted email. */
  readonly send: (email: OutgoingEmail) => Effect.Effect<{ readonly providerId: string }, MailerError>
}>() {}
