import { expect, it } from "@effect/vitest"
import { Mailer, MailerError, type OutgoingEmail } from "@roster/application"
import { Effect, Either, type Layer, type Scope } from "effect"

/** One email as the far side of the mailer got it. */
export interface HandedOver {
  readonly providerId: string
  readonly to: string
  readonly from: string
  readonly subject: string
  readonly text: string | undefined
  readonly headers: Readonly<Record<string, string>>
}

/** The provider's next answer, for a mailer that hands email to one. */
export type ProviderAnswer =
  | { readonly _tag: "RateLimited"; readonly retryAfterSeconds: number }
  | { readonly _tag: "Failing" }
  | { readonly _tag: "Refusing" }

/** A mailer under test, fresh for each test, and a look at what it handed over. */
export interface MailerUnderTest {
  readonly layer: Layer.Layer<Mailer>
  /** Every email handed over so far, oldest first. */
  readonly handedOver: () => ReadonlyArray<HandedOver>
  /** Sets the provider's answer to the next call; `undefined` for a mailer with no provider behind it. */
  readonly answerNext: ((answer: ProviderAnswer) => void) | undefined
}

export interface MailerContractOptions {
  /** Makes a mailer (and whatever it hands email to) for one test; released with the test's scope. */
  readonly start: Effect.Effect<MailerUnderTest, never, Scope.Scope>
  /** The sender the mailer was configured with, for emails that name none. */
  readonly defaultFrom: string
  /**
   * Whether the same idempotency key with the same email hands it over once (`once`, where the
   * provider supports it) or every time it is sent (`each time`).
   */
  readonly sameKey: "once" | "each time"
  /**
   * `scripted`: a provider is behind the mailer, and `answerNext` makes it refuse the next call.
   * `never`: nothing is behind it that could refuse; every email is taken.
   */
  readonly refusals: "scripted" | "never"
}

const email = (to: string, overrides: Partial<OutgoingEmail> = {}): OutgoingEmail => ({
  to,
  from: "Ada's Newsletter <news@ada.example>",
  subject: `Hello ${to}`,
  html: "<p>Hello</p>",
  text: "Hello",
  headers: { "List-Unsubscribe": "<https://roster.example/unsubscribe?token=t>" },
  ...overrides
})

const failureOf = <A>(result: Either.Either<A, MailerError>): MailerError => {
  if (Either.isRight(result)) throw new Error(`expected a MailerError, got ${JSON.stringify(result.right)}`)
  expect(result.left).toBeInstanceOf(MailerError)
  return result.left
}

/** What every Mailer promises, whichever provider (or none) is behind it. */
export const mailerContract = (options: MailerContractOptions): void => {
  const withMailer = <A, E>(use: (mailer: Mailer["Type"], subject: MailerUnderTest) => Effect.Effect<A, E>) =>
    Effect.flatMap(options.start, (subject) => Effect.provide(Effect.flatMap(Mailer, (mailer) => use(mailer, subject)), subject.layer))

  it.scopedLive("send hands the whole email over and answers the id it was given there", () =>
    withMailer((mailer, subject) =>
      Effect.gen(function*() {
        const accepted = yield* mailer.send(email("ada@example.com"))
        expect(accepted.providerId).not.toBe("")
        expect(subject.handedOver()).toEqual([{
          providerId: accepted.providerId,
          to: "ada@example.com",
          from: "Ada's Newsletter <news@ada.example>",
          subject: "Hello ada@example.com",
          text: "Hello",
          headers: { "List-Unsubscribe": "<https://roster.example/unsubscribe?token=t>" }
        }])
      })
    ))

  it.scopedLive("an email that names no sender goes out from the configured one", () =>
    withMailer((mailer, subject) =>
      Effect.gen(function*() {
        yield* mailer.send(email("bo@example.com", { from: undefined }))
        expect(subject.handedOver().map((e) => e.from)).toEqual([options.defaultFrom])
      })
    ))

  it.scopedLive("each email gets an id of its own", () =>
    withMailer((mailer) =>
      Effect.gen(function*() {
        const first = yield* mailer.send(email("ada@example.com"))
        const second = yield* mailer.send(email("bo@example.com"))
        expect(first.providerId).not.toBe(second.providerId)
      })
    ))

  it.scopedLive("sendBatch hands over every email, and the ids answer the emails in order", () =>
    withMailer((mailer, subject) =>
      Effect.gen(function*() {
        const batch = ["ada@example.com", "bo@example.com", "cy@example.com"].map((to) => email(to))
        const ids = yield* mailer.sendBatch(batch, { idempotencyKey: "batch-contract-1" })
        expect(ids).toHaveLength(3)
        const byId = new Map(subject.handedOver().map((e) => [e.providerId, e.to]))
        expect(ids.map((id) => byId.get(id.providerId))).toEqual(["ada@example.com", "bo@example.com", "cy@example.com"])
      })
    ))

  it.scopedLive(`the same idempotency key with the same email hands it over ${options.sameKey}`, () =>
    withMailer((mailer, subject) =>
      Effect.gen(function*() {
        const keyed = email("ada@example.com", { idempotencyKey: "message-contract-1" })
        const first = yield* mailer.send(keyed)
        const again = yield* mailer.send(keyed)
        if (options.sameKey === "once") {
          expect(again).toEqual(first)
          expect(subject.handedOver()).toHaveLength(1)
        } else {
          expect(again.providerId).not.toBe(first.providerId)
          expect(subject.handedOver()).toHaveLength(2)
        }
      })
    ))

  if (options.refusals === "never") {
    it.scopedLive("with no provider behind it, every email is taken, however bare", () =>
      withMailer((mailer, subject) =>
        Effect.gen(function*() {
          yield* mailer.send(email("ada@example.com", { subject: "", html: undefined, text: undefined }))
          yield* mailer.sendBatch([email("bo@example.com", { from: "not an address" })], {})
          expect(subject.handedOver().map((e) => e.to)).toEqual(["ada@example.com", "bo@example.com"])
        })
      ))
    return
  }

  it.scopedLive("the provider's refusals are told apart: too fast (with its wait), failing, or refusing the email", () =>
    withMailer((mailer, subject) =>
      Effect.gen(function*() {
        const answerNext = subject.answerNext
        if (answerNext === undefined) throw new Error("a mailer with a provider says how the provider answers next")
        answerNext({ _tag: "RateLimited", retryAfterSeconds: 7 })
        const tooFast = failureOf(yield* Effect.either(mailer.send(email("ada@example.com"))))
        expect(tooFast).toMatchObject({ retryable: true, rateLimited: true, retryAfterMs: 7_000 })

        answerNext({ _tag: "Failing" })
        const failing = failureOf(yield* Effect.either(mailer.send(email("ada@example.com"))))
        expect(failing).toMatchObject({ retryable: true, rateLimited: false })

        answerNext({ _tag: "Refusing" })
        const refused = failureOf(yield* Effect.either(mailer.sendBatch([email("ada@example.com")], {})))
        expect(refused).toMatchObject({ retryable: false, rateLimited: false })
        expect(subject.handedOver()).toEqual([])
      })
    ))
}
