import { AuthMail, type InvitationMail, Mailer, MailerError, type OutgoingEmail, type SignInLinkMail } from "@roster/application"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Logger, LogLevel, Redacted, Ref } from "effect"
import { makeConsoleMailer } from "../../adapters/in-process/index.js"
import { makeTemplatedAuthMail } from "../../adapters/liquid/index.js"
import { makeResendMailer } from "../../adapters/resend/index.js"
import { accepted, startResendStub } from "./resend-stub.js"

/** A mailer that keeps what it is given, or refuses everything. */
const recordingMailer = (sent: Ref.Ref<ReadonlyArray<OutgoingEmail>>) =>
  Layer.succeed(Mailer, {
    send: (email) => Effect.as(Ref.update(sent, (all) => [...all, email]), { providerId: `test-${Math.random()}` }),
    sendBatch: () => Effect.die("sign-in email goes out one at a time")
  })

const refused = new MailerError({ reason: "Resend answered 503 (application_error): unavailable", retryable: true })
const refusingMailer = Layer.succeed(Mailer, { send: () => Effect.fail(refused), sendBatch: () => Effect.fail(refused) })

const signInMail = (overrides: Partial<SignInLinkMail> = {}): SignInLinkMail => ({
  to: "ada@example.com",
  token: "q0Wx-9_zA8",
  locale: "en",
  expiresInMinutes: 15,
  ...overrides
})

/** Sends one sign-in email through the templated AuthMail and returns what reached the mailer. */
const render = (mail: SignInLinkMail, publicBaseUrl = "https://roster.example.com/") =>
  Effect.gen(function*() {
    const sent = yield* Ref.make<ReadonlyArray<OutgoingEmail>>([])
    yield* Effect.flatMap(AuthMail, (auth) => auth.sendSignInLink(mail)).pipe(
      Effect.provide(makeTemplatedAuthMail({ publicBaseUrl }).pipe(Layer.provide(recordingMailer(sent))))
    )
    const all = yield* Ref.get(sent)
    expect(all).toHaveLength(1)
    return all[0]!
  })

describe("sign-in email", () => {
  it.effect("in English: subject, link to the sign-in page under PUBLIC_BASE_URL, and the expiry in minutes", () =>
    Effect.gen(function*() {
      const email = yield* render(signInMail())
      const link = "https://roster.example.com/auth/sign-in?token=q0Wx-9_zA8"
      expect(email.to).toBe("ada@example.com")
      expect(email.from).toBeUndefined()
      expect(email.subject).toBe("Your sign-in link for Roster")
      expect(email.html).toContain('<html lang="en">')
      expect(email.html).toContain(`href="${link}"`)
      expect(email.html).toContain("Sign in to Roster")
      expect(email.html).toContain("expires in 15 minutes")
      expect(email.text).toContain(`\n${link}\n`)
      expect(email.text).toContain("expires in 15 minutes")
      expect(email.text).toContain("ada@example.com")
    }))

  it.effect("in German", () =>
    Effect.gen(function*() {
      const email = yield* render(signInMail({ locale: "de" }))
      const link = "https://roster.example.com/auth/sign-in?token=q0Wx-9_zA8"
      expect(email.subject).toBe("Ihr Anmeldelink für Roster")
      expect(email.html).toContain('<html lang="de">')
      expect(email.html).toContain(`href="${link}"`)
      expect(email.html).toContain("Bei Roster anmelden")
      expect(email.html).toContain("läuft in 15 Minuten ab")
      expect(email.text).toContain(link)
      expect(email.text).toContain("läuft in 15 Minuten ab")
    }))

  it.effect("one minute is singular", () =>
    Effect.gen(function*() {
      expect((yield* render(signInMail({ expiresInMinutes: 1 }))).text).toContain("expires in 1 minute.")
      expect((yield* render(signInMail({ locale: "de", expiresInMinutes: 1 }))).text).toContain("in 1 Minute ab")
    }))

  it.effect("hostile input is escaped in the HTML body and encoded in the link", () =>
    Effect.gen(function*() {
      const email = yield* render(signInMail({
        to: "\"<script>alert(1)</script>\"@example.com",
        token: "a\"><img src=x onerror=alert(1)>&next=https://evil.example"
      }))
      expect(email.html).not.toContain("<script>")
      expect(email.html).not.toContain("<img")
      expect(email.html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;")
      const encoded = encodeURIComponent("a\"><img src=x onerror=alert(1)>&next=https://evil.example")
      expect(email.html).toContain(`href="https://roster.example.com/auth/sign-in?token=${encoded}"`)
      expect(email.text).toContain(`https://roster.example.com/auth/sign-in?token=${encoded}`)
      // The token has exactly one parameter of the link: nothing of it leaks into another.
      const link = new URL(`https://roster.example.com/auth/sign-in?token=${encoded}`)
      expect([...link.searchParams.keys()]).toEqual(["token"])
    }))

  it.effect("a retried send is delivered once: the idempotency key follows the link, and never carries the token", () =>
    Effect.gen(function*() {
      const first = yield* render(signInMail())
      const again = yield* render(signInMail())
      const other = yield* render(signInMail({ token: "another-token" }))
      expect(first.idempotencyKey).toBeDefined()
      expect(first.idempotencyKey).toBe(again.idempotencyKey)
      expect(other.idempotencyKey).not.toBe(first.idempotencyKey)
      expect(first.idempotencyKey).not.toContain("q0Wx-9_zA8")
    }))

  it.effect("a delivery failure is logged as a warning, not raised", () =>
    Effect.gen(function*() {
      const logs = yield* Ref.make<ReadonlyArray<{ level: LogLevel.LogLevel; message: unknown }>>([])
      const logger = Logger.make(({ logLevel, message }) => {
        Effect.runSync(Ref.update(logs, (all) => [...all, { level: logLevel, message }]))
      })
      yield* Effect.flatMap(AuthMail, (auth) => auth.sendSignInLink(signInMail())).pipe(
        Effect.provide(makeTemplatedAuthMail({ publicBaseUrl: "http://localhost:3000" }).pipe(Layer.provide(refusingMailer))),
        Effect.provide(Logger.replace(Logger.defaultLogger, logger))
      )
      const warnings = (yield* Ref.get(logs)).filter((log) => log.level === LogLevel.Warning)
      expect(warnings).toHaveLength(1)
      expect(String(warnings[0]!.message)).toContain("could not be delivered")
      expect(String(warnings[0]!.message)).not.toContain("q0Wx-9_zA8")
    }))

  it.effect("through the console mailer, the terminal shows the sign-in link", () =>
    Effect.gen(function*() {
      const printed = yield* Ref.make("")
      const consoleMailer = makeConsoleMailer((text) => Ref.update(printed, (all) => all + text))
      yield* Effect.flatMap(AuthMail, (auth) => auth.sendSignInLink(signInMail())).pipe(
        Effect.provide(makeTemplatedAuthMail({ publicBaseUrl: "http://localhost:3000" }).pipe(Layer.provide(consoleMailer)))
      )
      const output = yield* Ref.get(printed)
      expect(output).toContain("http://localhost:3000/auth/sign-in?token=q0Wx-9_zA8")
      expect(output).toContain("Subject: Your sign-in link for Roster")
      expect(output).toContain("To: ada@example.com")
    }))
})

const invitationMail = (overrides: Partial<InvitationMail> = {}): InvitationMail => ({
  ...signInMail({ to: "grace@example.com" }),
  organizationName: "Acme Newsletters",
  invitedBy: "ada@example.com",
  ...overrides
})

/** Sends one invitation through the templated AuthMail and returns what reached the mailer. */
const renderInvitation = (mail: InvitationMail) =>
  Effect.gen(function*() {
    const sent = yield* Ref.make<ReadonlyArray<OutgoingEmail>>([])
    yield* Effect.flatMap(AuthMail, (auth) => auth.sendInvitation(mail)).pipe(
      Effect.provide(makeTemplatedAuthMail({ publicBaseUrl: "https://roster.example.com" }).pipe(Layer.provide(recordingMailer(sent))))
    )
    const all = yield* Ref.get(sent)
    expect(all).toHaveLength(1)
    return all[0]!
  })

describe("invitation email", () => {
  const link = "https://roster.example.com/auth/sign-in?token=q0Wx-9_zA8"

  it.effect("in English: names the organization and who invited them, and carries the sign-in link", () =>
    Effect.gen(function*() {
      const email = yield* renderInvitation(invitationMail())
      expect(email.to).toBe("grace@example.com")
      expect(email.subject).toBe("You are invited to Acme Newsletters on Roster")
      expect(email.html).toContain('<html lang="en">')
      expect(email.html).toContain(`href="${link}"`)
      expect(email.html).toContain("Join on Roster")
      expect(email.html).toContain("ada@example.com has invited you to join <strong>Acme Newsletters</strong>")
      expect(email.text).toContain("ada@example.com has invited you to join Acme Newsletters on Roster, as grace@example.com.")
      expect(email.text).toContain(`\n${link}\n`)
      expect(email.text).toContain("expires in 15 minutes")
    }))

  it.effect("in German", () =>
    Effect.gen(function*() {
      const email = yield* renderInvitation(invitationMail({ locale: "de", expiresInMinutes: 1 }))
      expect(email.subject).toBe("Einladung zu Acme Newsletters bei Roster")
      expect(email.html).toContain('<html lang="de">')
      expect(email.html).toContain("Bei Roster beitreten")
      expect(email.text).toContain("ada@example.com hat Sie eingeladen, bei Acme Newsletters auf Roster mitzuarbeiten")
      expect(email.text).toContain("läuft in 1 Minute ab")
      expect(email.text).toContain(link)
    }))

  it.effect("sent through an API key, it names no inviter", () =>
    Effect.gen(function*() {
      const email = yield* renderInvitation(invitationMail({ invitedBy: null }))
      expect(email.text).toContain("You have been invited to join Acme Newsletters on Roster")
      expect((yield* renderInvitation(invitationMail({ invitedBy: null, locale: "de" }))).text)
        .toContain("Sie wurden eingeladen, bei Acme Newsletters")
    }))

  it.effect("an organization's name is escaped in the HTML body and kept to one line in the subject", () =>
    Effect.gen(function*() {
      const email = yield* renderInvitation(invitationMail({
        organizationName: "<script>alert(1)</script>\r\nBcc: victim@example.com",
        invitedBy: "\"<img src=x>\"@example.com"
      }))
      expect(email.html).not.toContain("<script>")
      expect(email.html).not.toContain("<img")
      expect(email.html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;")
      expect(email.subject).toBe("You are invited to <script>alert(1)</script> Bcc: victim@example.com on Roster")
    }))

  it.effect("a retried send is delivered once, under a key of its own that never carries the token", () =>
    Effect.gen(function*() {
      const first = yield* renderInvitation(invitationMail())
      const again = yield* renderInvitation(invitationMail())
      const signIn = yield* render(signInMail())
      expect(first.idempotencyKey).toBe(again.idempotencyKey)
      expect(first.idempotencyKey).not.toBe(signIn.idempotencyKey)
      expect(first.idempotencyKey).toMatch(/^invitation-/)
      expect(first.idempotencyKey).not.toContain("q0Wx-9_zA8")
    }))

  it.effect("a delivery failure is logged as a warning, not raised", () =>
    Effect.gen(function*() {
      const logs = yield* Ref.make<ReadonlyArray<{ level: LogLevel.LogLevel; message: unknown }>>([])
      const logger = Logger.make(({ logLevel, message }) => {
        Effect.runSync(Ref.update(logs, (all) => [...all, { level: logLevel, message }]))
      })
      yield* Effect.flatMap(AuthMail, (auth) => auth.sendInvitation(invitationMail())).pipe(
        Effect.provide(makeTemplatedAuthMail({ publicBaseUrl: "http://localhost:3000" }).pipe(Layer.provide(refusingMailer))),
        Effect.provide(Logger.replace(Logger.defaultLogger, logger))
      )
      const warnings = (yield* Ref.get(logs)).filter((log) => log.level === LogLevel.Warning)
      expect(warnings).toHaveLength(1)
      expect(String(warnings[0]!.message)).toContain("the invitation email could not be delivered")
    }))

  it.effect("through the console mailer, the terminal shows the invitation and its link", () =>
    Effect.gen(function*() {
      const printed = yield* Ref.make("")
      const consoleMailer = makeConsoleMailer((text) => Ref.update(printed, (all) => all + text))
      yield* Effect.flatMap(AuthMail, (auth) => auth.sendInvitation(invitationMail())).pipe(
        Effect.provide(makeTemplatedAuthMail({ publicBaseUrl: "http://localhost:3000" }).pipe(Layer.provide(consoleMailer)))
      )
      const output = yield* Ref.get(printed)
      expect(output).toContain("Subject: You are invited to Acme Newsletters on Roster")
      expect(output).toContain("To: grace@example.com")
      expect(output).toContain("ada@example.com has invited you to join Acme Newsletters on Roster")
      expect(output).toContain("http://localhost:3000/auth/sign-in?token=q0Wx-9_zA8")
    }))

  it.scopedLive("through the Resend mailer, Resend gets the whole invitation with its idempotency key", () =>
    Effect.gen(function*() {
      const stub = yield* startResendStub([accepted("email_invite")])
      yield* Effect.flatMap(AuthMail, (auth) => auth.sendInvitation(invitationMail())).pipe(
        Effect.provide(makeTemplatedAuthMail({ publicBaseUrl: "https://roster.example.com" }).pipe(
          Layer.provide(makeResendMailer({
            apiKey: Redacted.make("re_test_key"),
            baseUrl: stub.baseUrl,
            from: "Roster <noreply@roster.example>",
            retry: { times: 0, initialDelay: "5 millis" }
          }))
        ))
      )
      expect(stub.requests).toHaveLength(1)
      const [request] = stub.requests
      expect(request!.path).toBe("/emails")
      expect(request!.headers["idempotency-key"]).toMatch(/^invitation-[0-9a-f]{64}$/)
      expect(request!.body).toMatchObject({
        from: "Roster <noreply@roster.example>",
        to: "grace@example.com",
        subject: "You are invited to Acme Newsletters on Roster"
      })
      const body = request!.body as { readonly html: string; readonly text: string }
      expect(body.html).toContain(`href="${link}"`)
      expect(body.text).toContain("ada@example.com has invited you to join Acme Newsletters on Roster")
    }))
})
