import { describe, expect, it } from "@effect/vitest"
import {
  CONFIRMATION_MAIL_INTERVAL_MS,
  keptUserAgent,
  looksAutomated,
  mayMailAgain,
  MIN_FORM_FILL_MS,
  signUpCollision,
  truncateClientAddress
} from "./sign-up.js"

describe("sign-ups", () => {
  it("an active subscriber gets no second record, a bounced or complained address nothing, others go ahead", () => {
    expect(signUpCollision(undefined)).toBe("proceed")
    expect(signUpCollision("unsubscribed")).toBe("proceed")
    expect(signUpCollision("active")).toBe("already_subscribed")
    expect(signUpCollision("bounced")).toBe("undeliverable")
    expect(signUpCollision("complained")).toBe("undeliverable")
  })

  it("mails an address and form at most once in ten minutes", () => {
    const at = new Date(Date.UTC(2025, 0, 1))
    expect(mayMailAgain(null, at)).toBe(true)
    expect(mayMailAgain(new Date(at.getTime() - CONFIRMATION_MAIL_INTERVAL_MS + 1), at)).toBe(false)
    expect(mayMailAgain(new Date(at.getTime() - CONFIRMATION_MAIL_INTERVAL_MS), at)).toBe(true)
  })

  it("takes a filled hidden field or a form sent back too fast for a robot", () => {
    const at = new Date(Date.UTC(2025, 0, 1))
    expect(looksAutomated(undefined, undefined, at)).toBe(false)
    expect(looksAutomated("", new Date(at.getTime() - MIN_FORM_FILL_MS), at)).toBe(false)
    expect(looksAutomated("http://spam", undefined, at)).toBe(true)
    expect(looksAutomated(undefined, new Date(at.getTime() - MIN_FORM_FILL_MS + 1), at)).toBe(true)
  })

  it("keeps a client address cut to /24 or /48, and nothing of what is not an address", () => {
    expect(truncateClientAddress("203.0.113.77")).toBe("203.0.113.0")
    expect(truncateClientAddress("::ffff:198.51.100.9")).toBe("198.51.100.0")
    expect(truncateClientAddress("2001:db8:abcd:12::1")).toBe("2001:db8:abcd::")
    expect(truncateClientAddress("::1")).toBe("0:0:0::")
    expect(truncateClientAddress("fe80::1%eth0")).toBe("fe80:0:0::")
    expect(truncateClientAddress("256.1.1.1")).toBeNull()
    expect(truncateClientAddress("1:2:3:4:5:6:7:8:9")).toBeNull()
    expect(truncateClientAddress("unknown")).toBeNull()
  })

  it("keeps at most 512 characters of a user agent", () => {
    expect(keptUserAgent(undefined)).toBeNull()
    expect(keptUserAgent("  ")).toBeNull()
    expect(keptUserAgent("x".repeat(600))).toHaveLength(512)
  })
})
