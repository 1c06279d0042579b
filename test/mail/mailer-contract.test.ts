/**
 * The Mailer contract against Resend's adapter, talking to a local server that speaks Resend's API,
 * and against the console mailer, read back from what it printed.
 */
import { describe } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { makeConsoleMailer } from "../../adapters/in-process/index.js"
import { makeResendMailer } from "../../adapters/resend/index.js"
import { type HandedOver, mailerContract, type ProviderAnswer } from "../contract/mailer-contract.js"
import { startResendApi } from "../support/resend-api.js"

const FROM = "Roster <noreply@roster.example>"

const resendAnswers: Record<ProviderAnswer["_tag"], (answer: ProviderAnswer) => Parameters<Awaited<ReturnType<typeof startResendApi>>["script"]>[0]> = {
  RateLimited: (answer) => ({
    status: 429,
    name: "rate_limit_exceeded",
    message: "Too many requests. You can only make 2 requests per second.",
    retryAfterSeconds: answer._tag === "RateLimited" ? answer.retryAfterSeconds : 1
  }),
  Failing: () => ({ status: 500, name: "internal_server_error", message: "An unexpected error occurred." }),
  Refusing: () => ({ status: 422, name: "validation_error", message: "Invalid `to` field." })
}

describe("Resend mailer against a Resend stand-in", () => {
  mailerContract({
    defaultFrom: FROM,
    sameKey: "once",
    refusals: "scripted",
    start: Effect.map(
      Effect.acquireRelease(Effect.promise(() => startResendApi()), (api) => Effect.promise(() => api.close())),
      (api) => ({
        // The worker's configuration: a failure comes back at once, for the worker to reschedule.
        layer: makeResendMailer({ apiKey: Redacted.make(api.apiKey), baseUrl: api.url, from: FROM, retry: { times: 0 } }),
        handedOver: () =>
          api.accepted().map((e) => ({
            providerId: e.id,
            to: e.to,
            from: e.from,
            subject: e.subject,
            text: e.text,
            headers: e.headers
          })),
        answerNext: (answer) => api.script(resendAnswers[answer._tag](answer))
      })
    )
  })
})

/** The emails of the console mailer's output, read back from the lines it prints. */
const readPrinted = (printed: ReadonlyArray<string>): ReadonlyArray<HandedOver> =>
  printed.map((text) => {
    const lines = text.split("\n")
    const providerId = /^email (\S+),/.exec(lines[1] ?? "")?.[1] ?? ""
    const blank = lines.indexOf("", 2)
    const fields = new Map(lines.slice(2, blank).map((line) => {
      const colon = line.indexOf(": ")
      return [line.slice(0, colon), line.slice(colon + 2)] as const
    }))
    const { From, Subject, To, "Idempotency-Key": _key, ...headers } = Object.fromEntries(fields)
    const body = lines.slice(blank + 1, -2).join("\n")
    return { providerId, to: To ?? "", from: From ?? "", subject: Subject ?? "", text: body === "" ? undefined : body, headers }
  })

describe("console mailer", () => {
  mailerContract({
    defaultFrom: FROM,
    sameKey: "each time",
    refusals: "never",
    start: Effect.sync(() => {
      const printed: Array<string> = []
      return {
        layer: makeConsoleMailer((text) => Effect.sync(() => void printed.push(text)), { from: FROM }),
        handedOver: () => readPrinted(printed),
        answerNext: undefined
      }
    })
  })
})
