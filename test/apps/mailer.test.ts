import { Mailer } from "@roster/application"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either } from "effect"
import { describeConfigError, RosterConfig } from "../../apps/shared/config.js"
import { mailerLayer } from "../../apps/shared/layers.js"
import { accepted, startResendStub } from "../mail/resend-stub.js"

/** The configuration read from `env` as the service reads it at start. */
const configOf = (env: Record<string, string>) =>
  RosterConfig.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))

/** One email sent through the mailer the configuration picks. */
const sendOne = (env: Record<string, string>) =>
  Effect.flatMap(configOf(env), (config) =>
    Effect.flatMap(Mailer, (mailer) =>
      mailer.send({ to: "ada@example.com", subject: "Hello", html: "<p>Hello</p>", text: "Hello" })).pipe(
        Effect.provide(mailerLayer(config))
      ))

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
      const sent = yield* sendOne({
        RESEND_API_KEY: "re_test_key",
        RESEND_BASE_URL: `${stub.baseUrl}/`,
        EMAIL_FROM: "Ada's Newsletter <news@ada.example>"
      })
      expect(sent).toEqual({ providerId: "email_live" })
      expect(stub.requests).toHaveLength(1)
      expect(stub.requests[0]!.path).toBe("/emails")
      expect(stub.requests[0]!.body).toMatchObject({ from: "Ada's Newsletter <news@ada.example>", to: "ada@example.com" })
    }))

  it.effect("without RESEND_API_KEY, emails are printed to stdout from the default sender", () =>
    Effect.gen(function*() {
      const { result, stdout } = yield* capturingStdout(sendOne({}))
      expect(result.providerId).toMatch(/^console-/)
      expect(stdout).toContain("From: Roster <noreply@localhost>")
      expect(stdout).toContain("To: ada@example.com")
    }))

  it.effect.each([
    [{ RESEND_API_KEY: " " }, /^RESEND_API_KEY: must not be empty when set$/],
    [{ RESEND_API_KEY: "re_test_key", RESEND_BASE_URL: "api.resend" }, /^RESEND_BASE_URL: must be an absolute URL/],
    [{ EMAIL_FROM: " " }, /^EMAIL_FROM: must not be empty$/]
  ] as const)("a bad mail setting stops the start, naming the variable: %o", ([env, expected]) =>
    Effect.gen(function*() {
      const read = yield* Effect.either(configOf(env))
      expect(Either.isLeft(read) && describeConfigError(read.left)).toMatch(expected)
    }))
})
