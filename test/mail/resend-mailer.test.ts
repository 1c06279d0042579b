import { Mailer, MailerError, type OutgoingEmail } from "@roster/application"
import { describe, expect, it } from "@effect/vitest"
import { type Duration, Effect, Either, Redacted } from "effect"
import { makeResendMailer } from "../../adapters/resend/index.js"
import { accepted, type Answer, resendError, startResendStub, unreachableBaseUrl } from "./resend-stub.js"

const email: OutgoingEmail = {
  to: "ada@example.com",
  from: "Ada's Newsletter <news@ada.example>",
  subject: "Hello from Roster",
  html: "<p>Hello</p>",
  text: "Hello",
  idempotencyKey: "message-0192f3a4",
  headers: { "List-Unsubscribe": "<https://roster.example/unsubscribe?token=t>" }
}

/** Sends one email through a Resend mailer pointed at `baseUrl`, with quick retries. */
const sendThrough = (
  baseUrl: string,
  outgoing: OutgoingEmail = email,
  options: { readonly attemptTimeout?: Duration.DurationInput } = {}
) =>
  Effect.flatMap(Mailer, (mailer) => mailer.send(outgoing)).pipe(
    Effect.provide(makeResendMailer({
      apiKey: Redacted.make("re_test_key"),
      baseUrl,
      from: "Roster <noreply@roster.example>",
      retry: { times: 3, initialDelay: "5 millis" },
      ...(options.attemptTimeout === undefined ? {} : { attemptTimeout: options.attemptTimeout })
    }))
  )

const failureOf = <A>(result: Either.Either<A, MailerError>): MailerError => {
  if (Either.isRight(result)) throw new Error(`expected a MailerError, got ${JSON.stringify(result.right)}`)
  expect(result.left).toBeInstanceOf(MailerError)
  return result.left
}

describe("Resend mailer", () => {
  it.scopedLive("an accepted email returns Resend's id, and Resend saw the whole email and its idempotency key", () =>
    Effect.gen(function*() {
      const stub = yield* startResendStub([accepted("email_4f1c")])
      const sent = yield* sendThrough(stub.baseUrl)
      expect(sent).toEqual({ providerId: "email_4f1c" })
      expect(stub.requests).toHaveLength(1)
      const [request] = stub.requests
      expect(request!.method).toBe("POST")
      expect(request!.path).toBe("/emails")
      expect(request!.headers.authorization).toBe("Bearer re_test_key")
      expect(request!.headers["content-type"]).toContain("application/json")
      expect(request!.headers["idempotency-key"]).toBe("message-0192f3a4")
      expect(request!.body).toMatchObject({
        from: "Ada's Newsletter <news@ada.example>",
        to: "ada@example.com",
        subject: "Hello from Roster",
        html: "<p>Hello</p>",
        text: "Hello",
        headers: { "List-Unsubscribe": "<https://roster.example/unsubscribe?token=t>" }
      })
    }))

  it.scopedLive("an email that names no sender goes out from the configured one, without an idempotency key", () =>
    Effect.gen(function*() {
      const stub = yield* startResendStub([accepted("email_1")])
      yield* sendThrough(stub.baseUrl, { to: "bo@example.com", subject: "Hi", html: "<p>Hi</p>", text: "Hi" })
      expect(stub.requests[0]!.body).toMatchObject({ from: "Roster <noreply@roster.example>", to: "bo@example.com" })
      expect(stub.requests[0]!.headers["idempotency-key"]).toBeUndefined()
    }))

  it.scopedLive("a validation error is final: not retryable, and sent once", () =>
    Effect.gen(function*() {
      const stub = yield* startResendStub([
        resendError(422, "validation_error", "Invalid `to` field. The email address needs to follow the `email@example.com` format.")
      ])
      const error = failureOf(yield* Effect.either(sendThrough(stub.baseUrl)))
      expect(error.retryable).toBe(false)
      expect(error.reason).toContain("422")
      expect(error.reason).toContain("validation_error")
      expect(stub.requests).toHaveLength(1)
    }))

  it.scopedLive("a refused API key is final", () =>
    Effect.gen(function*() {
      const stub = yield* startResendStub([accepted("never")], { apiKey: "re_another_key" })
      const error = failureOf(yield* Effect.either(sendThrough(stub.baseUrl)))
      expect(error.retryable).toBe(false)
      expect(error.reason).toContain("invalid_api_key")
      expect(stub.requests).toHaveLength(1)
    }))

  it.scopedLive("a server error is tried again, with the same idempotency key, and then succeeds", () =>
    Effect.gen(function*() {
      const stub = yield* startResendStub([
        resendError(500, "internal_server_error", "An unexpected error occurred."),
        accepted("email_after_retry")
      ])
      expect(yield* sendThrough(stub.baseUrl)).toEqual({ providerId: "email_after_retry" })
      expect(stub.requests).toHaveLength(2)
      expect(stub.requests.map((r) => r.headers["idempotency-key"])).toEqual(["message-0192f3a4", "message-0192f3a4"])
    }))

  it.scopedLive("a rate limit (429) is tried again", () =>
    Effect.gen(function*() {
      const stub = yield* startResendStub([
        resendError(429, "rate_limit_exceeded", "Too many requests. You can only make 2 requests per second."),
        accepted("email_after_429")
      ])
      expect(yield* sendThrough(stub.baseUrl)).toEqual({ providerId: "email_after_429" })
      expect(stub.requests).toHaveLength(2)
    }))

  it.scopedLive("a persistent 503 gives up after the bounded attempts with a retryable error", () =>
    Effect.gen(function*() {
      const stub = yield* startResendStub([resendError(503, "application_error", "Service unavailable")])
      const error = failureOf(yield* Effect.either(sendThrough(stub.baseUrl)))
      expect(error.retryable).toBe(true)
      expect(error.reason).toContain("503")
      // The first attempt and three retries.
      expect(stub.requests).toHaveLength(4)
    }))

  it.scopedLive("a 502 page that is not JSON (a proxy's) is tried again like any server error", () =>
    Effect.gen(function*() {
      const stub = yield* startResendStub([
        { status: 502, raw: "<html><body>Bad Gateway</body></html>", contentType: "text/html" },
        accepted("email_after_502")
      ])
      expect(yield* sendThrough(stub.baseUrl)).toEqual({ providerId: "email_after_502" })
      expect(stub.requests).toHaveLength(2)
    }))

  it.scopedLive("a used-up daily quota may pass later, but is not tried again within the send", () =>
    Effect.gen(function*() {
      const stub = yield* startResendStub([
        resendError(429, "daily_quota_exceeded", "You have reached your daily email sending quota.")
      ])
      const error = failureOf(yield* Effect.either(sendThrough(stub.baseUrl)))
      expect(error.retryable).toBe(true)
      // Not a matter of pace: the sending rate is not lowered for it.
      expect(error.rateLimited).toBe(false)
      expect(stub.requests).toHaveLength(1)
    }))

  it.scopedLive("an unreachable API is a retryable failure once the attempts are spent", () =>
    Effect.gen(function*() {
      const error = failureOf(yield* Effect.either(sendThrough(yield* unreachableBaseUrl)))
      expect(error.retryable).toBe(true)
      expect(error.reason).toContain("unreachable")
    }))

  it.scopedLive("an attempt that gets no answer times out and is tried again", () =>
    Effect.gen(function*() {
      const answers: ReadonlyArray<Answer> = ["hang", accepted("email_after_timeout")]
      const stub = yield* startResendStub(answers)
      expect(yield* sendThrough(stub.baseUrl, email, { attemptTimeout: "200 millis" })).toEqual({
        providerId: "email_after_timeout"
      })
      expect(stub.requests).toHaveLength(2)
    }))

  it.scopedLive("an answer without an email id is a final failure", () =>
    Effect.gen(function*() {
      const stub = yield* startResendStub([{ status: 200, json: { object: "email" } }])
      const error = failureOf(yield* Effect.either(sendThrough(stub.baseUrl)))
      expect(error.retryable).toBe(false)
      expect(stub.requests).toHaveLength(1)
    }))
})
