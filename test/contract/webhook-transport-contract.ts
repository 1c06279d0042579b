import { expect, it } from "@effect/vitest"
import { type WebhookMessage, WebhookTransport } from "@roster/application"
import { InvalidInput, signingSecretFromBytes } from "@roster/domain"
import { Effect, Either, type Layer, Option, type Scope } from "effect"
import { randomBytes } from "node:crypto"

/** One message as the receiver got it. */
export interface Received {
  readonly id: string
  readonly body: string
  /** Whether the message arrived signed with `secret`. */
  readonly signedWith: (secret: string) => boolean
}

/** How the receiver answers the next message. */
export type ReceiverAnswer =
  | { readonly _tag: "Status"; readonly status: number; readonly retryAfterSeconds?: number; readonly location?: string }
  | { readonly _tag: "Gone" }

/** A transport under test, and the receiver it reaches, fresh for each test. */
export interface WebhookTransportUnderTest {
  /** The transport as an operator configures it: refusing private targets unless allowed. */
  readonly transport: (allowPrivateTargets: boolean) => Layer.Layer<WebhookTransport>
  /** Where the receiver listens; a private target, reached only when private targets are allowed. */
  readonly receiverUrl: string
  /** Every message the receiver got, oldest first. */
  readonly received: () => ReadonlyArray<Received>
  /** Sets how the receiver answers from now on; `Gone` closes it, so nothing answers. */
  readonly answer: (answer: ReceiverAnswer) => Effect.Effect<void>
}

export interface WebhookTransportContractOptions {
  readonly start: Effect.Effect<WebhookTransportUnderTest, never, Scope.Scope>
}

const secret = signingSecretFromBytes(randomBytes(24))
const rotated = signingSecretFromBytes(randomBytes(24))

const messageTo = (url: string, id = "evt_contract_1"): WebhookMessage => ({
  url,
  id,
  timestamp: new Date(),
  body: JSON.stringify({ type: "subscriber.created", data: { id } }),
  secrets: [secret, rotated]
})

/** What every WebhookTransport promises, over a network or not. */
export const webhookTransportContract = (options: WebhookTransportContractOptions): void => {
  const using = <A, E>(
    allowPrivateTargets: boolean,
    use: (transport: WebhookTransport["Type"], subject: WebhookTransportUnderTest) => Effect.Effect<A, E>
  ) =>
    Effect.flatMap(options.start, (subject) =>
      Effect.provide(Effect.flatMap(WebhookTransport, (transport) => use(transport, subject)), subject.transport(allowPrivateTargets)))

  const refusalOf = (result: Either.Either<void, InvalidInput>): InvalidInput => {
    if (Either.isRight(result)) throw new Error("expected the target to be refused")
    expect(result.left).toBeInstanceOf(InvalidInput)
    return result.left
  }

  it.scopedLive("checkTarget refuses what may not be called, on the field it is told, saying why", () =>
    using(false, (transport) =>
      Effect.gen(function*() {
        for (
          const url of [
            "ftp://hooks.example.com/roster",
            "http://127.0.0.1:8080/hook",
            "http://169.254.169.254/latest/meta-data",
            "http://10.0.0.7/hook",
            "http://[::1]/hook",
            "http://localhost/hook"
          ]
        ) {
          const refusal = refusalOf(yield* Effect.either(transport.checkTarget(url, "url")))
          expect(refusal.field).toBe("url")
          expect(refusal.problem).not.toBe("")
        }
        yield* transport.checkTarget("https://93.184.215.14/hook", "url")
      })
    ))

  it.scopedLive("private targets allowed, checkTarget lets them through, but never another scheme than http(s)", () =>
    using(true, (transport, subject) =>
      Effect.gen(function*() {
        yield* transport.checkTarget(subject.receiverUrl, "url")
        yield* transport.checkTarget("http://10.0.0.7/hook", "url")
        const refusal = refusalOf(yield* Effect.either(transport.checkTarget("file:///etc/passwd", "target")))
        expect(refusal.field).toBe("target")
      })
    ))

  it.scopedLive("a message to a refused target is an answer of no one, not a failure, and nothing is sent", () =>
    using(false, (transport, subject) =>
      Effect.gen(function*() {
        const result = yield* transport.send(messageTo(subject.receiverUrl))
        expect(result._tag).toBe("NoAnswer")
        expect(subject.received()).toEqual([])
      })
    ))

  it.scopedLive("send delivers the exact body under the event's id, signed with every secret, and gives the receiver's status", () =>
    using(true, (transport, subject) =>
      Effect.gen(function*() {
        yield* subject.answer({ _tag: "Status", status: 200 })
        const message = messageTo(subject.receiverUrl)
        const result = yield* transport.send(message)
        expect(result).toMatchObject({ _tag: "Answered", status: 200, retryAfterMs: Option.none() })
        if (result._tag === "Answered") expect(result.durationMs).toBeGreaterThanOrEqual(0)
        const [got, ...more] = subject.received()
        expect(more).toEqual([])
        expect(got).toMatchObject({ id: message.id, body: message.body })
        expect([got!.signedWith(secret), got!.signedWith(rotated)]).toEqual([true, true])
        expect(got!.signedWith(signingSecretFromBytes(randomBytes(24)))).toBe(false)
      })
    ))

  it.scopedLive("a receiver's refusal is its answer, with the wait its Retry-After asks for", () =>
    using(true, (transport, subject) =>
      Effect.gen(function*() {
        yield* subject.answer({ _tag: "Status", status: 503, retryAfterSeconds: 30 })
        expect(yield* transport.send(messageTo(subject.receiverUrl))).toMatchObject({
          _tag: "Answered",
          status: 503,
          retryAfterMs: Option.some(30_000)
        })
        yield* subject.answer({ _tag: "Status", status: 410 })
        expect(yield* transport.send(messageTo(subject.receiverUrl, "evt_contract_2"))).toMatchObject({
          _tag: "Answered",
          status: 410,
          retryAfterMs: Option.none()
        })
      })
    ))

  it.scopedLive("a redirect is the answer, not followed", () =>
    using(true, (transport, subject) =>
      Effect.gen(function*() {
        yield* subject.answer({ _tag: "Status", status: 302, location: "http://169.254.169.254/latest/meta-data" })
        expect(yield* transport.send(messageTo(subject.receiverUrl))).toMatchObject({ _tag: "Answered", status: 302 })
        expect(subject.received()).toHaveLength(1)
      })
    ))

  it.scopedLive("a receiver that is gone is an answer of no one, not a failure", () =>
    using(true, (transport, subject) =>
      Effect.gen(function*() {
        yield* subject.answer({ _tag: "Gone" })
        const result = yield* transport.send(messageTo(subject.receiverUrl))
        expect(result._tag).toBe("NoAnswer")
        if (result._tag === "NoAnswer") expect(result.error).not.toBe("")
      })
    ))
}
