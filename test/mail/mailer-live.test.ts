import { Mailer } from "@roster/application"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit } from "effect"
import { MailerLive } from "../../adapters/mail/index.js"
import { accepted, startResendStub } from "./resend-stub.js"

const withConfig = (entries: Record<string, string>) =>
  Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(entries))))

const sendOne = Effect.flatMap(Mailer, (mailer) =>
  mailer.send({ to: "ada@example.com", subject: "Hello", html: "<p>Hello</p>", text: "Hello" })).pipe(
    Effect.provide(MailerLive)
  )

/** Catches what is written to stdout while `effect` runs, and keeps it from the test output. */
const capturingStdout = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const chunks: Array<string> = []
    const write = process.stdout.write
    yield* Effect.acquireRelease(
      Effect.sync(() => {
        process.stdout.write = ((chunk: string | Uint8Array) => {
          chunks.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"))
          return true
        }) as typeof process.stdout.write
      }),
      () =>
        Effect.sync(() => {
          process.stdout.write = write
        })
    )
    const result = yield* effect
    return { result, stdout: chunks.join("") }
  }).pipe(Effect.scoped)

describe("choosing the mailer from configuration", () => {
  it.scopedLive("with RESEND_API_KEY, emails go to Resend at RESEND_BASE_URL, from EMAIL_FROM", () =>
    Effect.gen(function*() {
      const stub = yield* startResendStub([accepted("email_live")])
      const sent = yield* sendOne.pipe(withConfig({
        RESEND_API_KEY: "re_test_key",
        RESEND_BASE_URL: `${stub.baseUrl}/`,
        EMAIL_FROM: "Ada's Newsletter <news@ada.example>"
      }))
      expect(sent).toEqual({ providerId: "email_live" })
      expect(stub.requests).toHaveLength(1)
      expect(stub.requests[0]!.path).toBe("/emails")
      expect(stub.requests[0]!.body).toMatchObject({ from: "Ada's Newsletter <news@ada.example>", to: "ada@example.com" })
    }))

  it.effect("without RESEND_API_KEY, emails are printed to stdout from the default sender", () =>
    Effect.gen(function*() {
      const { result, stdout } = yield* capturingStdout(sendOne.pipe(withConfig({})))
      expect(result.providerId).toMatch(/^console-/)
      expect(stdout).toContain("From: Roster <noreply@localhost>")
      expect(stdout).toContain("To: ada@example.com")
    }))

  it.effect("an empty RESEND_API_KEY or a RESEND_BASE_URL that is not a URL stops the layer, naming the variable", () =>
    Effect.gen(function*() {
      const emptyKey = yield* Effect.exit(sendOne.pipe(withConfig({ RESEND_API_KEY: " " })))
      expect(Exit.isFailure(emptyKey) && String(emptyKey.cause)).toContain("RESEND_API_KEY")
      const badUrl = yield* Effect.exit(
        sendOne.pipe(withConfig({ RESEND_API_KEY: "re_test_key", RESEND_BASE_URL: "api.resend" }))
      )
      expect(Exit.isFailure(badUrl) && String(badUrl.cause)).toContain("RESEND_BASE_URL")
    }))
})
