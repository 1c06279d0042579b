import { describe, expect, it } from "@effect/vitest"
import { Duration, FastCheck as fc } from "effect"
import { expiresAt, MAGIC_LINK_LIFETIME, magicLinkState, PREFERENCE_TOKEN_LIFETIME, SESSION_LIFETIME, TokenKind } from "./tokens.js"

const issuedAt = new Date("2025-05-01T09:00:00.000Z")
const link = (consumedAt: Date | null = null) => ({ expiresAt: expiresAt(issuedAt, MAGIC_LINK_LIFETIME), consumedAt })
const after = (ms: number) => new Date(issuedAt.getTime() + ms)

describe("token lifetimes", () => {
  it("a magic link lives 15 minutes, a session 7 days, a preference token 30 days", () => {
    expect(Duration.toMinutes(MAGIC_LINK_LIFETIME)).toBe(15)
    expect(Duration.toDays(SESSION_LIFETIME)).toBe(7)
    expect(Duration.toDays(PREFERENCE_TOKEN_LIFETIME)).toBe(30)
  })

  it("a link issued at 09:00 expires at 09:15", () => {
    expect(expiresAt(issuedAt, MAGIC_LINK_LIFETIME)).toEqual(new Date("2025-05-01T09:15:00.000Z"))
  })

  it("each token kind has its own audience", () => {
    expect(new Set(Object.values(TokenKind)).size).toBe(Object.keys(TokenKind).length)
  })
})

describe("magic links", () => {
  it("is still good at 14:59 after it was issued", () => {
    expect(magicLinkState(link(), after(14 * 60_000 + 59_000))).toBe("valid")
    expect(magicLinkState(link(), after(15 * 60_000 - 1))).toBe("valid")
  })

  it("has expired at 15:00", () => {
    expect(magicLinkState(link(), after(15 * 60_000))).toBe("expired")
    expect(magicLinkState(link(), after(60 * 60_000))).toBe("expired")
  })

  it("once used, says used, whether or not it has expired since", () => {
    expect(magicLinkState(link(after(60_000)), after(2 * 60_000))).toBe("used")
    expect(magicLinkState(link(after(60_000)), after(16 * 60_000))).toBe("used")
  })

  it.prop(
    "an unused link is valid exactly before its expiry",
    [fc.integer({ min: -60_000, max: 60 * 60_000 })],
    ([elapsed]) => {
      expect(magicLinkState(link(), after(elapsed))).toBe(elapsed < 15 * 60_000 ? "valid" : "expired")
    }
  )
})
