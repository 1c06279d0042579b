import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import { effectiveFrom, formatMailbox, FromName, mailboxAddress } from "./email-settings.js"

const fromName = Schema.decodeUnknownEither(FromName)

describe("sender settings", () => {
  it("a display name is quoted, so commas, quotes and angle brackets never change the address", () => {
    expect(formatMailbox("Acme", "news@acme.example")).toBe('"Acme" <news@acme.example>')
    expect(formatMailbox('Ada "A", Weekly <x@evil.example>', "n@a.example")).toBe('"Ada \\"A\\", Weekly <x@evil.example>" <n@a.example>')
    expect(formatMailbox("back\\slash", "n@a.example")).toBe('"back\\\\slash" <n@a.example>')
    expect(formatMailbox("Zoë 日本", "n@a.example")).toBe('"Zoë 日本" <n@a.example>')
    expect(formatMailbox("   ", "n@a.example")).toBe("n@a.example")
  })

  it("the address of a mailbox is read with or without a display name", () => {
    expect(mailboxAddress("Roster <noreply@localhost>")).toBe("noreply@localhost")
    expect(mailboxAddress("noreply@localhost")).toBe("noreply@localhost")
  })

  it("the From header takes the organization's name until a display name is set, and the service's address", () => {
    expect(effectiveFrom({ fromName: null, fromAddress: null }, "Acme", "Roster <noreply@roster.example>"))
      .toBe('"Acme" <noreply@roster.example>')
    expect(effectiveFrom({ fromName: "Acme Weekly", fromAddress: null }, "Acme", "noreply@roster.example"))
      .toBe('"Acme Weekly" <noreply@roster.example>')
  })

  it("a display name is one line of text, trimmed, at most 100 characters", () => {
    expect(fromName("  Acme  ")).toEqual(Either.right("Acme"))
    for (const bad of ["", "  ", "a\r\nBcc: x@y.example", "tab\there", "x".repeat(101), "line\u2028break"]) {
      expect(Either.isLeft(fromName(bad)), JSON.stringify(bad)).toBe(true)
    }
    expect(fromName("é".repeat(100))).toEqual(Either.right("é".repeat(100)))
  })
})
