import { Mailer, MailerError, type OutgoingEmail } from "@roster/application"
import { Duration, Effect, Layer, Redacted, Schedule } from "effect"
import { type CreateEmailOptions, type ErrorResponse, Resend } from "resend"

export const RESEND_API_BASE_URL = "https://api.resend.com"

export interface ResendMailerOptions {
  readonly apiKey: Redacted.Redacted<string>
  /** Resend's API; another base serves tests and proxies. */
  readonly baseUrl?: string | undefined
  /** The sender of emails that name none. */
  readonly from: string
  /** Retries of a failure that may pass: how many after the first attempt, and the first delay. */
  readonly retry?: { readonly times?: number; readonly initialDelay?: Duration.DurationInput } | undefined
  /** How long one attempt may take before it counts as a failure that may pass. */
  readonly attemptTimeout?: Duration.DurationInput | undefined
}

/** One failed attempt: the error callers see, and whether to try again at once (with backoff). */
interface Failure {
  readonly error: MailerError
  readonly retryNow: boolean
}

const MAX_REASON_LENGTH = 300

const failure = (reason: string, retryable: boolean, retryNow = retryable): Failure => ({
  error: new MailerError({ reason: reason.slice(0, MAX_REASON_LENGTH), retryable }),
  retryNow
})

/**
 * Resend's answer as a failure. Refusals of the email itself (validation, a bad sender, a bad key)
 * are final; rate limits, server errors and an unreachable API may pass. A used-up daily or monthly
 * quota may pass later, but not within this send.
 */
const fromResendError = (error: ErrorResponse): Failure => {
  const status = typeof error.statusCode === "number" ? error.statusCode : null
  const name = typeof error.name === "string" ? error.name : "unknown_error"
  const message = typeof error.message === "string" ? error.message : ""
  const reason = `Resend ${status === null ? "unreachable" : `answered ${status}`} (${name}): ${message}`
  if (name === "daily_quota_exceeded" || name === "monthly_quota_exceeded") return failure(reason, true, false)
  if (status === null) return failure(reason, name === "application_error" || name === "internal_server_error")
  return failure(reason, status === 429 || status >= 500 || name === "concurrent_idempotent_requests")
}

const toResend = (email: OutgoingEmail, defaultFrom: string): CreateEmailOptions => ({
  from: email.from ?? defaultFrom,
  to: email.to,
  subject: email.subject,
  html: email.html,
  text: email.text,
  ...(email.headers !== undefined && Object.keys(email.headers).length > 0 ? { headers: { ...email.headers } } : {})
})

/**
 * Hands emails to Resend through its SDK. Failures that may pass (429, 5xx, an unreachable API,
 * a timed-out attempt) are tried again a few times with jittered exponential backoff; the email's
 * idempotency key goes along as Resend's, so a retried email is still sent once.
 */
export const makeResendMailer = (options: ResendMailerOptions): Layer.Layer<Mailer> =>
  Layer.sync(Mailer, () => {
    const resend = new Resend(Redacted.value(options.apiKey), { baseUrl: options.baseUrl ?? RESEND_API_BASE_URL })
    const attemptTimeout = options.attemptTimeout ?? Duration.seconds(10)
    const retries = Schedule.exponential(options.retry?.initialDelay ?? Duration.millis(250), 2).pipe(
      Schedule.jittered,
      Schedule.intersect(Schedule.recurs(options.retry?.times ?? 3))
    )

    const attempt = (payload: CreateEmailOptions, idempotencyKey: string | undefined) =>
      Effect.tryPromise({
        try: (signal) =>
          resend.emails.send(payload, { signal, ...(idempotencyKey === undefined ? {} : { idempotencyKey }) }),
        catch: (cause): Failure =>
          failure(`Resend could not be reached: ${cause instanceof Error ? cause.message : String(cause)}`, true)
      }).pipe(
        Effect.timeoutFail({
          duration: attemptTimeout,
          onTimeout: () => failure(`Resend did not answer within ${Duration.format(attemptTimeout)}`, true)
        }),
        Effect.flatMap((result): Effect.Effect<{ readonly providerId: string }, Failure> => {
          if (result.error !== null) return Effect.fail(fromResendError(result.error))
          const id: unknown = result.data?.id
          return typeof id === "string" && id !== ""
            ? Effect.succeed({ providerId: id })
            : Effect.fail(failure("Resend accepted the email without an id", false))
        })
      )

    return Mailer.of({
      send: (email) =>
        attempt(toResend(email, options.from), email.idempotencyKey).pipe(
          Effect.tapError((f) => Effect.logDebug("an attempt to send an email through Resend failed", f.error.reason)),
          Effect.retry({ schedule: retries, while: (f) => f.retryNow }),
          Effect.mapError((f) => f.error),
          Effect.withSpan("Mailer.send", { attributes: { provider: "resend" } })
        )
    })
  })
