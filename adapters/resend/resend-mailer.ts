import { type AcceptedEmail, Mailer, MailerError, type OutgoingEmail } from "@roster/application"
import { MAX_BATCH_SIZE } from "@roster/domain"
import { Duration, Effect, Layer, Redacted, Schedule } from "effect"
import { type CreateEmailOptions, type ErrorResponse, Resend } from "resend"

export const RESEND_API_BASE_URL = "https://api.resend.com"

export interface ResendMailerOptions {
  readonly apiKey: Redacted.Redacted<string>
  /** Resend's API; another base serves tests and proxies. */
  readonly baseUrl?: string | undefined
  /** The sender of emails that name none. */
  readonly from: string
  /**
   * Retries of a failure that may pass: how many after the first attempt (0 for none: a caller
   * that reschedules its own work, as the worker does, sees the first failure), and the first delay.
   */
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

const failure = (
  reason: string,
  retryable: boolean,
  retryNow = retryable,
  retryAfterMs: number | null = null,
  rateLimited = false
): Failure => ({
  error: new MailerError({ reason: reason.slice(0, MAX_REASON_LENGTH), retryable, retryAfterMs, rateLimited }),
  retryNow
})

/** How long Resend asked to wait, from `retry-after` (seconds or a date) or `ratelimit-reset` (seconds). */
export const retryAfterOf = (headers: Readonly<Record<string, string>> | null, now = Date.now()): number | null => {
  if (headers === null) return null
  const value = headers["retry-after"] ?? headers["Retry-After"] ?? headers["ratelimit-reset"]
  if (value === undefined) return null
  const seconds = Number(value)
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000)
  const at = Date.parse(value)
  return Number.isNaN(at) ? null : Math.max(0, at - now)
}

/**
 * Resend's answer as a failure. Refusals of the email itself (validation, a bad sender, a bad key)
 * are final; rate limits, server errors and an unreachable API may pass. A used-up daily or monthly
 * quota may pass later, but not within this send.
 */
const fromResendError = (error: ErrorResponse, headers: Record<string, string> | null): Failure => {
  const status = typeof error.statusCode === "number" ? error.statusCode : null
  const name = typeof error.name === "string" ? error.name : "unknown_error"
  const message = typeof error.message === "string" ? error.message : ""
  const reason = `Resend ${status === null ? "unreachable" : `answered ${status}`} (${name}): ${message}`
  const retryAfterMs = retryAfterOf(headers)
  if (name === "daily_quota_exceeded" || name === "monthly_quota_exceeded") {
    return failure(reason, true, false, retryAfterMs)
  }
  if (status === null) return failure(reason, name === "application_error" || name === "internal_server_error")
  return failure(
    reason,
    status === 429 || status >= 500 || name === "concurrent_idempotent_requests",
    undefined,
    retryAfterMs,
    status === 429
  )
}

const toResend = (email: OutgoingEmail, defaultFrom: string): CreateEmailOptions => ({
  from: email.from ?? defaultFrom,
  to: email.to,
  subject: email.subject,
  ...(email.html === undefined ? {} : { html: email.html }),
  ...(email.text === undefined ? {} : { text: email.text }),
  ...(email.headers !== undefined && Object.keys(email.headers).length > 0 ? { headers: { ...email.headers } } : {})
}) as CreateEmailOptions

/** What the SDK answers: data or an error, and the answer's headers. */
interface SdkAnswer<A> {
  readonly data: A | null
  readonly error: ErrorResponse | null
  readonly headers?: Record<string, string> | null
}

/**
 * Hands emails to Resend through its SDK: one at a time (`POST /emails`) or up to 100 in one call
 * (`POST /emails/batch`, all or none). Failures that may pass (429, 5xx, an unreachable API, a
 * timed-out attempt) are tried again with jittered exponential backoff unless `retry.times` is 0;
 * the idempotency key goes along as Resend's, so a retried email is still sent once.
 */
export const makeResendMailer = (options: ResendMailerOptions): Layer.Layer<Mailer> =>
  Layer.sync(Mailer, () => {
    const resend = new Resend(Redacted.value(options.apiKey), { baseUrl: options.baseUrl ?? RESEND_API_BASE_URL })
    const attemptTimeout = options.attemptTimeout ?? Duration.seconds(10)
    const retries = Schedule.exponential(options.retry?.initialDelay ?? Duration.millis(250), 2).pipe(
      Schedule.jittered,
      Schedule.intersect(Schedule.recurs(options.retry?.times ?? 3))
    )

    const attempt = <A, B>(
      call: (signal: AbortSignal) => Promise<SdkAnswer<A>>,
      accepted: (data: A) => B | undefined
    ): Effect.Effect<B, MailerError> =>
      Effect.tryPromise({
        try: call,
        catch: (cause): Failure =>
          failure(`Resend could not be reached: ${cause instanceof Error ? cause.message : String(cause)}`, true)
      }).pipe(
        Effect.timeoutFail({
          duration: attemptTimeout,
          onTimeout: () => failure(`Resend did not answer within ${Duration.format(attemptTimeout)}`, true)
        }),
        Effect.flatMap((answer): Effect.Effect<B, Failure> => {
          if (answer.error !== null) return Effect.fail(fromResendError(answer.error, answer.headers ?? null))
          const result = answer.data === null ? undefined : accepted(answer.data)
          return result === undefined
            ? Effect.fail(failure("Resend accepted the email without an id", false))
            : Effect.succeed(result)
        }),
        Effect.tapError((f) => Effect.logDebug("an attempt to send email through Resend failed", f.error.reason)),
        Effect.retry({ schedule: retries, while: (f) => f.retryNow }),
        Effect.mapError((f) => f.error)
      )

    const idOf = (data: { readonly id?: unknown }): AcceptedEmail | undefined =>
      typeof data.id === "string" && data.id !== "" ? { providerId: data.id } : undefined

    return Mailer.of({
      send: (email) =>
        attempt(
          (signal) =>
            resend.emails.send(toResend(email, options.from), {
              signal,
              ...(email.idempotencyKey === undefined ? {} : { idempotencyKey: email.idempotencyKey })
            }) as Promise<SdkAnswer<{ readonly id?: unknown }>>,
          idOf
        ),

      sendBatch: (emails, { idempotencyKey }) =>
        emails.length > MAX_BATCH_SIZE
          ? Effect.fail(new MailerError({ reason: `at most ${MAX_BATCH_SIZE} emails go in one batch`, retryable: false }))
          : attempt(
            (signal) =>
              resend.batch.send(emails.map((email) => toResend(email, options.from)), {
                signal,
                ...(idempotencyKey === undefined ? {} : { idempotencyKey })
              }) as Promise<SdkAnswer<{ readonly data?: ReadonlyArray<{ readonly id?: unknown }> }>>,
            (answer) => {
              const ids = (answer.data ?? []).map(idOf)
              return ids.length === emails.length && ids.every((id) => id !== undefined)
                ? ids as ReadonlyArray<AcceptedEmail>
                : undefined
            }
          )
    })
  })
