import { describe, expect, it } from "@effect/vitest"
import { Session, isSessionActive } from "./session.js"
import { UserId } from "./ids.js"

const start = new Date("2026-01-01T00:00:00.000Z")
const session = (revokedAt: Date | null) =>
  new Session({
    id: "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10",
    userId: UserId.make("0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a11"),
    createdAt: start,
    expiresAt: new Date(start.getTime() + 7 * 24 * 3600_000),
    revokedAt
  })

describe("sessions", () => {
  it("a session is active until it expires", () => {
    expect(isSessionActive(session(null), new Date(start.getTime() + 7 * 24 * 3600_000 - 1))).toBe(true)
    expect(isSessionActive(session(null), new Date(start.getTime() + 7 * 24 * 3600_000))).toBe(false)
  })

  it("a revoked session is over at once", () => {
    expect(isSessionActive(session(new Date(start.getTime() + 1000)), new Date(start.getTime() + 2000))).toBe(false)
  })
})
