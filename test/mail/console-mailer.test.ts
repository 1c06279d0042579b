import { Mailer, type OutgoingEmail } from "@roster/application"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Ref } from "effect"
import { makeConsoleMailer } from "../../adapters/in-process/index.js"

const email: OutgoingEmail = {
  to: "ada@example.com",
  subject: "Your sign-in link for Roster",
  html: "<p>Open <a href=\"http://localhost:3000/auth/sign-in?token=abc\">this link</a></p>",
  text: "Open this link to sign in:\n\nhttp://localhost:3000/auth/sign-in?token=abc\n",
  headers: { "List-Unsubscribe": "<http://localhost:3000/unsubscribe?token=u>" }
}

/** Sends the emails through a console mailer that writes into a string; returns what it printed. */
const printed = (emails: ReadonlyArray<OutgoingEmail>, options: { readonly from?: string } = {}) =>
  Effect.gen(function*() {
    const output = yield* Ref.make<ReadonlyArray<string>>([])
    const ids = yield* Effect.forEach(emails, (e) => Effect.flatMap(Mailer, (mailer) => mailer.send(e))).pipe(
      Effect.provide(makeConsoleMailer((text) => Ref.update(output, (all) => [...all, text]), options))
    )
    return { writes: yield* Ref.get(output), ids: ids.map((id) => id.providerId) }
  })

describe("console mailer", () => {
  it.effect("prints each email readably, the text body with its link included", () =>
    Effect.gen(function*() {
      const { ids, writes } = yield* printed([email], { from: "Roster <noreply@roster.example>" })
      expect(writes).toHaveLength(1)
      const lines = writes[0]!.split("\n")
      expect(lines).toContain("From: Roster <noreply@roster.example>")
      expect(lines).toContain("To: ada@example.com")
      expect(lines).toContain("Subject: Your sign-in link for Roster")
      expect(lines).toContain("List-Unsubscribe: <http://localhost:3000/unsubscribe?token=u>")
      expect(lines).toContain("http://localhost:3000/auth/sign-in?token=abc")
      expect(writes[0]).not.toContain("<p>")
      expect(writes[0]).toContain(ids[0])
    }))

  it.effect("the email's own sender wins over the default, and the default is Roster's", () =>
    Effect.gen(function*() {
      const own = yield* printed([{ ...email, from: "Ada <ada@news.example>" }])
      expect(own.writes[0]!.split("\n")).toContain("From: Ada <ada@news.example>")
      const fallback = yield* printed([email])
      expect(fallback.writes[0]!.split("\n")).toContain("From: Roster <noreply@localhost>")
    }))

  it.effect("each email gets its own id", () =>
    Effect.gen(function*() {
      const { ids } = yield* printed([email, email])
      expect(ids[0]).toMatch(/^console-/)
      expect(ids[0]).not.toBe(ids[1])
    }))

  it.effect("hostile text cannot add header lines or send escape sequences to the terminal", () =>
    Effect.gen(function*() {
      const { writes } = yield* printed([{
        ...email,
        subject: "Hi\r\nFrom: ceo@bank.example\u001b[2J",
        text: "body\u001b]0;owned\u0007 end"
      }])
      const lines = writes[0]!.split("\n")
      expect(lines.filter((line) => line.startsWith("From: "))).toEqual(["From: Roster <noreply@localhost>"])
      expect(writes[0]).not.toContain("\u001b")
      expect(writes[0]).not.toContain("\u0007")
    }))
})
