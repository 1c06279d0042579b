/**
 * The WebhookTransport contract against the HTTP transport, sending to a local receiver, and
 * against the recording transport the use-case tests send through.
 */
import { describe } from "@effect/vitest"
import type { SendResult } from "@roster/domain"
import { Effect, Option } from "effect"
import { Webhook } from "standardwebhooks"
import { makeHttpWebhookTransport } from "../../adapters/http-client/index.js"
import { type ReceiverAnswer, webhookTransportContract } from "../contract/webhook-transport-contract.js"
import { makeRecordingWebhookTransport } from "../support/recording-webhook-transport.js"
import { type Answer, startWebhookReceiver } from "../support/webhook-receiver.js"

/** Whether Standard Webhooks' own check takes the request as signed with `secret`. */
const verifies = (secret: string, body: string, headers: Readonly<Record<string, string>>): boolean => {
  try {
    new Webhook(secret).verify(body, headers)
    return true
  } catch {
    return false
  }
}

const httpAnswer = (answer: Extract<ReceiverAnswer, { _tag: "Status" }>): Answer => ({
  status: answer.status,
  headers: {
    ...(answer.retryAfterSeconds === undefined ? {} : { "retry-after": String(answer.retryAfterSeconds) }),
    ...(answer.location === undefined ? {} : { location: answer.location })
  }
})

describe("HTTP webhook transport to a local receiver", () => {
  webhookTransportContract({
    start: Effect.map(
      Effect.acquireRelease(Effect.promise(() => startWebhookReceiver()), (receiver) => Effect.promise(() => receiver.close())),
      (receiver) => ({
        transport: (allowPrivateTargets) => makeHttpWebhookTransport({ allowPrivateTargets, timeoutMs: 5_000 }),
        receiverUrl: receiver.url,
        received: () =>
          receiver.requests().map((request) => ({
            id: request.webhookId,
            body: request.rawBody,
            signedWith: (secret: string) => verifies(secret, request.rawBody, request.headers)
          })),
        answer: (answer) =>
          answer._tag === "Gone"
            ? Effect.promise(() => receiver.close())
            : Effect.sync(() => receiver.script(() => httpAnswer(answer)))
      })
    )
  })
})

describe("recording webhook transport", () => {
  webhookTransportContract({
    start: Effect.sync(() => {
      let next: SendResult = { _tag: "Answered", status: 200, durationMs: 1, retryAfterMs: Option.none() }
      const transports = {
        guarded: makeRecordingWebhookTransport({ answer: () => next, allowPrivateTargets: false }),
        open: makeRecordingWebhookTransport({ answer: () => next, allowPrivateTargets: true })
      }
      return {
        transport: (allowPrivateTargets: boolean) => (allowPrivateTargets ? transports.open : transports.guarded).layer,
        receiverUrl: "http://127.0.0.1:9/webhooks",
        received: () =>
          [...transports.guarded.sent(), ...transports.open.sent()].map((message) => ({
            id: message.id,
            body: message.body,
            signedWith: (secret: string) => message.secrets.includes(secret)
          })),
        answer: (answer: ReceiverAnswer) =>
          Effect.sync(() => {
            next = answer._tag === "Gone"
              ? { _tag: "NoAnswer", error: "connect ECONNREFUSED 127.0.0.1:9", durationMs: 0 }
              : {
                _tag: "Answered",
                status: answer.status,
                durationMs: 1,
                retryAfterMs: Option.fromNullable(answer.retryAfterSeconds === undefined ? undefined : answer.retryAfterSeconds * 1000)
              }
          })
      }
    })
  })
})
