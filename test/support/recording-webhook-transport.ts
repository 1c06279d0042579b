import { type WebhookMessage, WebhookTransport } from "@roster/application"
import { InvalidInput, reason, type SendResult } from "@roster/domain"
import { Effect, Either, Layer, Option } from "effect"
import { inspectTarget } from "../../adapters/http-client/index.js"

export interface RecordingWebhookTransportOptions {
  /** How receivers answer each message; by default 200 after 1 ms. */
  readonly answer?: ((message: WebhookMessage) => SendResult | Effect.Effect<SendResult>) | undefined
  /** Lets literal private addresses and local names through, as the HTTP transport's option does. */
  readonly allowPrivateTargets?: boolean | undefined
}

export interface RecordingWebhookTransport {
  readonly layer: Layer.Layer<WebhookTransport>
  /** The messages sent so far, oldest first; a message to a refused target was not sent and is not here. */
  readonly sent: () => ReadonlyArray<WebhookMessage>
}

/** What a receiver answers unless told otherwise: 200, after 1 ms (reported, not waited for). */
export const answeredOk: SendResult = { _tag: "Answered", status: 200, durationMs: 1, retryAfterMs: Option.none() }

/**
 * A webhook transport in memory, for tests: it keeps what it sends and answers as told. Targets
 * are judged by the same guard as the HTTP transport's, without DNS: a bad scheme, a literal
 * private address or a local name is refused, and any other hostname is taken as public. Nothing
 * waits on a clock, so it runs under the TestClock.
 */
export const makeRecordingWebhookTransport = (
  options: RecordingWebhookTransportOptions = {}
): RecordingWebhookTransport => {
  const sent: Array<WebhookMessage> = []
  const allowPrivateTargets = options.allowPrivateTargets ?? false
  const answer = options.answer ?? (() => answeredOk)

  const layer = Layer.succeed(
    WebhookTransport,
    WebhookTransport.of({
      checkTarget: (url, field) =>
        Either.match(inspectTarget(url, allowPrivateTargets), {
          onLeft: (problem) => Effect.fail(new InvalidInput({ field, reason: reason("foreign", { text: problem }) })),
          onRight: () => Effect.void
        }),
      send: (message) =>
        Effect.suspend(() => {
          const target = inspectTarget(message.url, allowPrivateTargets)
          if (Either.isLeft(target)) {
            return Effect.succeed<SendResult>({ _tag: "NoAnswer", error: `refused target: ${target.left}`, durationMs: 0 })
          }
          sent.push(message)
          const answered = answer(message)
          return Effect.isEffect(answered) ? answered : Effect.succeed(answered)
        })
    })
  )
  return { layer, sent: () => [...sent] }
}
