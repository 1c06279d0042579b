import { describe, expect, it } from "@effect/vitest"
import { type WebhookMessage, WebhookTransport } from "@roster/application"
import { type SendResult } from "@roster/domain"
import { Effect, Option, TestClock } from "effect"
import { answeredOk, makeRecordingWebhookTransport } from "../support/recording-webhook-transport.js"

const message = (url: string, id = "evt_1"): WebhookMessage => ({
  url,
  id,
  timestamp: new Date(0),
  body: JSON.stringify({ id }),
  secrets: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"]
})

const withTransport = <A, E>(
  recording: ReturnType<typeof makeRecordingWebhookTransport>,
  use: (transport: WebhookTransport["Type"]) => Effect.Effect<A, E>
) => Effect.provide(Effect.flatMap(WebhookTransport, use), recording.layer)

describe("recording webhook transport", () => {
  it.effect("answers 200 by default and keeps every message it sent, in order", () =>
    Effect.gen(function*() {
      const recording = makeRecordingWebhookTransport()
      const results = yield* withTransport(recording, (transport) =>
        Effect.forEach(["evt_1", "evt_2"], (id) => transport.send(message("https://hooks.example.com/roster", id))))
      expect(results).toEqual([answeredOk, answeredOk])
      expect(answeredOk).toEqual({ _tag: "Answered", status: 200, durationMs: 1, retryAfterMs: Option.none() })
      expect(recording.sent().map((m) => m.id)).toEqual(["evt_1", "evt_2"])
    }))

  it.effect("answers as told, with a plain result or an effect (which may wait on the TestClock)", () =>
    Effect.gen(function*() {
      const slow: SendResult = { _tag: "NoAnswer", error: "timed out after 10 s", durationMs: 10_000 }
      const recording = makeRecordingWebhookTransport({
        answer: (m) =>
          m.id === "evt_slow"
            ? Effect.as(Effect.sleep("10 seconds"), slow)
            : { _tag: "Answered", status: 429, durationMs: 5, retryAfterMs: Option.some(7000) }
      })
      const limited = yield* withTransport(recording, (t) => t.send(message("https://hooks.example.com/a")))
      expect(limited).toMatchObject({ status: 429, retryAfterMs: Option.some(7000) })
      const fiber = yield* Effect.fork(
        withTransport(recording, (t) => t.send(message("https://hooks.example.com/b", "evt_slow")))
      )
      yield* TestClock.adjust("10 seconds")
      expect(yield* fiber.await).toMatchObject({ _tag: "Success", value: slow })
      expect(recording.sent()).toHaveLength(2)
    }))

  it.effect("refuses what the HTTP transport refuses without DNS, and accepts any hostname", () =>
    Effect.gen(function*() {
      const recording = makeRecordingWebhookTransport()
      const checked = (url: string) => withTransport(recording, (t) => Effect.either(t.checkTarget(url, "url")))
      for (
        const [url, reason] of [
          ["http://127.0.0.1:8080/", "127.0.0.1, a loopback address"],
          ["http://10.0.0.7/", "10.0.0.7, a private address"],
          ["http://169.254.169.254/latest", "169.254.169.254, a cloud metadata address"],
          ["http://[::ffff:7f00:1]/", "(127.0.0.1), a loopback address"],
          ["http://2130706433/", "127.0.0.1, a loopback address"],
          ["http://localhost:3000/", "localhost is a loopback name"],
          ["http://metadata.google.internal/", "cloud metadata name"],
          ["ftp://example.com/", "must use http or https"]
        ] as const
      ) {
        const result = yield* checked(url)
        expect(result._tag, url).toBe("Left")
        if (result._tag === "Left") {
          expect(result.left).toMatchObject({ _tag: "InvalidInput", field: "url" })
          expect(result.left.problem).toContain(reason)
        }
      }
      expect((yield* checked("https://hooks.example.com/roster"))._tag).toBe("Right")
      expect((yield* checked("https://93.184.215.14/roster"))._tag).toBe("Right")
    }))

  it.effect("a message to a refused target is no answer and is not recorded as sent", () =>
    Effect.gen(function*() {
      const recording = makeRecordingWebhookTransport()
      const result = yield* withTransport(recording, (t) => t.send(message("http://10.0.0.7/hook")))
      expect(result._tag).toBe("NoAnswer")
      if (result._tag === "NoAnswer") expect(result.error).toContain("refused target: points at 10.0.0.7")
      expect(recording.sent()).toEqual([])
    }))

  it.effect("lets private targets through when told to, but never another scheme", () =>
    Effect.gen(function*() {
      const recording = makeRecordingWebhookTransport({ allowPrivateTargets: true })
      yield* withTransport(recording, (t) => t.checkTarget("http://127.0.0.1:8080/", "url"))
      const refused = yield* withTransport(recording, (t) => Effect.flip(t.checkTarget("file:///etc/passwd", "endpoint")))
      expect(refused).toMatchObject({ field: "endpoint", problem: "must use http or https" })
      expect(yield* withTransport(recording, (t) => t.send(message("http://localhost:8080/")))).toEqual(answeredOk)
      expect(recording.sent().map((m) => m.url)).toEqual(["http://localhost:8080/"])
    }))
})
