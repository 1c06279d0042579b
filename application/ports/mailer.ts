import { Context, type Effect, Schema } from "effect"

export interface OutgoingEmail {
  readonly to: string
  /** `Name <address>`; the configured default sender when absent. */
  readonly from?: string | undefined
  readonly subject: string
  /** The HTML body, the text body, or both. */
  readonly html?: string | undefined
  readonly text?: string | undefined
  /** The same key sends the same email at most once, where the provider supports it. */
  readonly idempotencyKey?: string | undefined
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/**
 * The provider refused or could not take an email. `retryable` when trying again later may work;
 * `retryAfterMs` when the provider said how long to wait first; `rateLimited` when it said calls
 * came too fast (a 429 that is not a used-up quota).
 */
export class MailerError extends Schema.TaggedError<MailerError>()("MailerError", {
  reason: Schema.String,
  retryable: Schema.Boolean,
  retryAfterMs: Schema.optionalWith(Schema.NullOr(Schema.Number), { default: () => null }),
  rateLimited: Schema.optionalWith(Schema.Boolean, { default: () => false })
}) {
  override get message() {
    return this.reason
  }
}

/** The provider's id of an email it accepted. */
export interface AcceptedEmail {
  readonly providerId: string
}

/** Hands emails to the delivery provider. */
export class Mailer extends Context.Tag("roster/Mailer")<Mailer, {
  readonly send: (email: OutgoingEmail) => Effect.Effect<AcceptedEmail, MailerError>
  /**
   * Hands over up to 100 emails in one call, all or none; the ids answer the emails in order. The
   * same `idempotencyKey` with the same emails hands them over once.
   */
  readonly sendBatch: (
    emails: ReadonlyArray<OutgoingEmail>,
    options: { readonly idempotencyKey?: string | undefined }
  ) => Effect.Effect<ReadonlyArray<AcceptedEmail>, MailerError>
}>() {}
