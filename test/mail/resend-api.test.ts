/**
 * The Resend mailer against a local server that speaks Resend's API: single and batch sends,
 * idempotency keys, and the failures the worker must tell apart (429 with Retry-After, 5xx,
 * a refused email, an unanswered call).
 */
import { Mailer, type MailerError, type OutgoingEmail } from "@roster/application"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Either, Redacted } from "effect"
import { makeResendMailer } from "../../adapters/resend/index.js"
import { type ResendApi, startResendApi } from "../support/resend-api.js"

let resend: ResendApi
beforeAll(async () => {
  resend = await startResendApi()
})
afterAll(() => resend.close())

const email = (n: number): OutgoingEmail => ({
  to: `reader-${n}@example.com`,
  from: "\"Acme\" <news@acme.example>",
  subject: `Issue ${n}`,
  html: `<p>Issue ${n}</p>`,
  headers: { "List-Unsubscribe": `<https://acme.example/unsubscribe?token=${n}>` }
})

/** A mailer as the worker has it: no retries of its own, a short time-out. */
const withMailer = <A, E>(use: (mailer: Mailer["Type"]) => Effect.Effect<A, E>) =>
  Effect.flatMap(Mailer, use).pipe(
    Effect.provide(makeResendMailer({
      apiKey: Redacted.make(resend.apiKey),
      baseUrl: resend.url,
      from: "Roster <noreply@roster.example>",
      retry: { times: 0 },
      attemptTimeout: "300 millis"
    }))
  )

const failure = <A>(result: Either.Either<A, MailerError>): MailerError => {
  if (Either.isRight(result)) throw new Error(`expected a failure, got ${JSON.stringify(result.right)}`)
  return result.left
}

describe("the Resend mailer against a Resend stand-in", () => {
  it.live("a batch is one call; the ids answer the emails in order, each with its own headers", () =>
    Effect.gen(function*() {
      const before = resend.accepted().length
      const emails = [email(1), email(2), email(3)]
      const ids = yield* withMailer((m) => m.sendBatch(emails, { idempotencyKey: "batch-one" }))
      const got = resend.accepted().slice(before)
      expect(ids.map((a) => a.providerId)).toEqual(got.map((a) => a.id))
      expect(got.map((a) => [a.to, a.subject, a.headers["List-Unsubscribe"], a.batched])).toEqual([
        ["reader-1@example.com", "Issue 1", "<https://acme.example/unsubscribe?token=1>", true],
        ["reader-2@example.com", "Issue 2", "<https://acme.example/unsubscribe?token=2>", true],
        ["reader-3@example.com", "Issue 3", "<https://acme.example/unsubscribe?token=3>", true]
      ])
      expect(resend.calls().at(-1)).toMatchObject({ path: "/emails/batch", status: 200, emails: 3, idempotencyKey: "batch-one" })
    }))

  it.live("the same batch under the same key is taken once; another batch under that key is refused for good", () =>
    Effect.gen(function*() {
      const emails = [email(4), email(5)]
      const first = yield* withMailer((m) => m.sendBatch(emails, { idempotencyKey: "batch-two" }))
      const before = resend.accepted().length
      const again = yield* withMailer((m) => m.sendBatch(emails, { idempotencyKey: "batch-two" }))
      expect(again).toEqual(first)
      expect(resend.accepted().length).toBe(before)
      const other = failure(yield* Effect.either(withMailer((m) => m.sendBatch([email(6)], { idempotencyKey: "batch-two" }))))
      expect(other.retryable).toBe(false)
      expect(other.reason).toContain("invalid_idempotent_request")
    }))

  it.live("a single email goes under its own idempotency key, once", () =>
    Effect.gen(function*() {
      const one = { ...email(7), idempotencyKey: "message-7" }
      const first = yield* withMailer((m) => m.send(one))
      const again = yield* withMailer((m) => m.send(one))
      expect(again).toEqual(first)
      expect(resend.accepted().filter((a) => a.idempotencyKey === "message-7")).toHaveLength(1)
      expect(resend.calls().at(-1)).toMatchObject({ path: "/emails", status: 200 })
    }))

  it.live("a 429 is a failure that may pass, with the wait Resend asked for", () =>
    Effect.gen(function*() {
      resend.script({ status: 429, name: "rate_limit_exceeded", message: "Too many requests", retryAfterSeconds: 3 })
      const limited = failure(yield* Effect.either(withMailer((m) => m.sendBatch([email(8), email(9)], {}))))
      expect(limited).toMatchObject({ retryable: true, retryAfterMs: 3_000, rateLimited: true })
      expect(limited.reason).toContain("429")
    }))

  it.live("a 5xx and an unanswered call may pass; a refused email will not", () =>
    Effect.gen(function*() {
      resend.script({ status: 500, name: "internal_server_error", message: "oops" })
      expect(failure(yield* Effect.either(withMailer((m) => m.send(email(10)))))).toMatchObject({
        retryable: true,
        retryAfterMs: null,
        rateLimited: false
      })
      resend.script("hold")
      const timedOut = failure(yield* Effect.either(withMailer((m) => m.send(email(11)))))
      expect(timedOut.retryable).toBe(true)
      expect(timedOut.reason).toContain("did not answer")
      resend.dropHeld()
      const refused = failure(yield* Effect.either(withMailer((m) => m.sendBatch([email(12), { ...email(13), to: "not an address" }], {}))))
      expect(refused.retryable).toBe(false)
      expect(refused.reason).toContain("422")
    }))

  it.live("more than 100 emails are refused before any call", () =>
    Effect.gen(function*() {
      const calls = resend.calls().length
      const refused = failure(yield* Effect.either(withMailer((m) => m.sendBatch(Array.from({ length: 101 }, (_, i) => email(i)), {}))))
      expect(refused.retryable).toBe(false)
      expect(resend.calls().length).toBe(calls)
    }))
})
