import { describe, expect, it } from "@effect/vitest"
import {
  domainOfAddress,
  isWithinDomain,
  nextCheckDelayMs,
  normalizeDomain,
  senderAddressInUse,
  sendingDomainProblem
} from "./sending-domain.js"

describe("custom sending domains", () => {
  it("a sending domain is a host name of letters, digits and hyphens, with a dot, ending in a name", () => {
    for (const good of ["acme.example", "news.acme.example", "xn--bcher-kva.example", "a-b.c0.example", `${"a".repeat(63)}.example`]) {
      expect(sendingDomainProblem(normalizeDomain(good)), good).toBeUndefined()
    }
    for (const bad of [
      "",
      "localhost",
      "acme",
      "https://acme.example",
      "acme.example:25",
      "ada@acme.example",
      "acme.example/news",
      "bücher.example",
      "acme..example",
      ".acme.example",
      "-acme.example",
      "acme-.example",
      "ac_me.example",
      "10.0.0.1",
      `${"a".repeat(64)}.example`,
      `${"a.".repeat(127)}example`
    ]) {
      expect(sendingDomainProblem(normalizeDomain(bad)), bad).toBeDefined()
    }
    expect(normalizeDomain("  News.ACME.example. ")).toBe("news.acme.example")
  })

  it("a domain is within itself and its parents, not its look-alikes", () => {
    expect(isWithinDomain("acme.example", "acme.example")).toBe(true)
    expect(isWithinDomain("news.acme.example", "acme.example")).toBe(true)
    expect(isWithinDomain("notacme.example", "acme.example")).toBe(false)
    expect(isWithinDomain("acme.example", "news.acme.example")).toBe(false)
    expect(domainOfAddress("Letters@News.Acme.Example")).toBe("news.acme.example")
  })

  it("an address of its own is used only on a verified domain, where a custom domain is allowed; the default address always", () => {
    const verified = { name: "news.acme.example", status: "verified" } as const
    const context = { customSendingDomain: true, domain: verified, defaultAddress: "noreply@roster.example" } as const
    expect(senderAddressInUse("letters@news.acme.example", context)).toBe("letters@news.acme.example")
    expect(senderAddressInUse("Letters@NEWS.acme.example", context)).toBe("Letters@NEWS.acme.example")
    expect(senderAddressInUse(null, context)).toBeNull()
    expect(senderAddressInUse("letters@other.example", context)).toBeNull()
    expect(senderAddressInUse("letters@sub.news.acme.example", context)).toBeNull()
    expect(senderAddressInUse("letters@news.acme.example", { ...context, domain: { ...verified, status: "pending" } })).toBeNull()
    expect(senderAddressInUse("letters@news.acme.example", { ...context, domain: { ...verified, status: "failed" } })).toBeNull()
    expect(senderAddressInUse("letters@news.acme.example", { ...context, domain: null })).toBeNull()
    expect(senderAddressInUse("letters@news.acme.example", { ...context, customSendingDomain: false })).toBeNull()
    expect(senderAddressInUse("NOREPLY@roster.example", { ...context, customSendingDomain: false, domain: null })).toBe("NOREPLY@roster.example")
  })

  it("a pending domain is checked a quarter of its age later, at least a minute and at most an hour apart", () => {
    const added = new Date(Date.UTC(2026, 0, 1))
    const after = (ms: number) => new Date(added.getTime() + ms)
    expect(nextCheckDelayMs(added, after(60_000))).toBe(60_000)
    expect(nextCheckDelayMs(added, after(20 * 60_000))).toBe(5 * 60_000)
    expect(nextCheckDelayMs(added, after(4 * 3_600_000))).toBe(3_600_000)
    expect(nextCheckDelayMs(added, after(3 * 86_400_000))).toBe(3_600_000)
  })
})
