import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { MESSAGE_RETRY_DELAYS_MS, MessageEventType, type MessageStatus, messageStatuses, nextAttemptAt, statusAfter, usageMonth, withheld } from "./message.js"
import { subscriberStatuses } from "./subscriber.js"

describe("messages", () => {
  it("bounced and complained subscribers receive nothing, unsubscribed ones transactional email only", () => {
    for (const kind of ["transactional", "marketing"] as const) {
      expect(withheld("bounced", kind, false)?.status).toBe("suppressed")
      expect(withheld("complained", kind, true)?.status).toBe("suppressed")
      expect(withheld("active", kind, false)).toBeNull()
    }
    expect(withheld("unsubscribed", "marketing", false)?.status).toBe("suppressed")
    expect(withheld("unsubscribed", "transactional", false)).toBeNull()
  })

  it("a subscriber whose erasure is under way receives nothing, whatever the email", () => {
    for (const status of subscriberStatuses) {
      expect(withheld(status, "transactional", true, true)?.reason).toContain("erased")
    }
  })

  it("a test key's email is sandboxed, unless it would be suppressed anyway", () => {
    expect(withheld("active", "marketing", true)?.status).toBe("sandboxed")
    expect(withheld("unsubscribed", "marketing", true)?.status).toBe("suppressed")
    expect(withheld("unsubscribed", "transactional", true)?.status).toBe("sandboxed")
    for (const status of subscriberStatuses) {
      for (const kind of ["transactional", "marketing"] as const) {
        const live = withheld(status, kind, false)
        if (live !== null) expect(withheld(status, kind, true)).toEqual(live)
      }
    }
  })

  it("delivery, opening and clicking only move an email forward; bounces and complaints are final", () => {
    expect(statusAfter("sent", "delivered")).toBe("delivered")
    expect(statusAfter("opened", "delivered")).toBe("opened")
    expect(statusAfter("delivered", "clicked")).toBe("clicked")
    expect(statusAfter("opened", "bounced")).toBe("bounced")
    expect(statusAfter("bounced", "opened")).toBe("bounced")
    expect(statusAfter("complained", "bounced")).toBe("complained")
    expect(statusAfter("sent", "delayed")).toBe("sent")
    expect(statusAfter("sent", "failed")).toBe("failed")
    expect(statusAfter("delivered", "failed")).toBe("delivered")
  })

  it("an email the provider never took is moved by no report", () => {
    const events = fc.constantFrom(...MessageEventType.literals)
    fc.assert(fc.property(fc.constantFrom<MessageStatus>("queued", "failed", "suppressed", "sandboxed"), events, (status, event) =>
      statusAfter(status, event) === status))
    fc.assert(fc.property(fc.constantFrom(...messageStatuses), events, (status, event) =>
      messageStatuses.includes(statusAfter(status, event))))
  })

  it("retries back off, wait at least the provider's Retry-After, and end", () => {
    const at = new Date(Date.UTC(2026, 10, 24, 12))
    expect(nextAttemptAt(1, at, null)).toEqual(new Date(at.getTime() + 10_000))
    expect(nextAttemptAt(1, at, 60_000)).toEqual(new Date(at.getTime() + 60_000))
    expect(nextAttemptAt(3, at, 1_000)).toEqual(new Date(at.getTime() + 120_000))
    expect(nextAttemptAt(MESSAGE_RETRY_DELAYS_MS.length + 1, at, null)).toBeNull()
    const total = MESSAGE_RETRY_DELAYS_MS.reduce((a, b) => a + b, 0)
    expect(total).toBeGreaterThan(12 * 3_600_000)
  })

  it("an email counts in its calendar month, in UTC", () => {
    expect(usageMonth(new Date("2026-11-30T23:59:59.999Z"))).toBe("2026-11")
    expect(usageMonth(new Date("2026-12-01T00:00:00.000Z"))).toBe("2026-12")
  })
})
