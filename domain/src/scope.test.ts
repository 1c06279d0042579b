import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { allows, includesAll, type Scope, scopeDescriptions, scopes } from "./scope.js"

const scope = fc.constantFrom(...scopes)
const scopeSet = fc.uniqueArray(scope, { maxLength: scopes.length })

describe("scopes", () => {
  it("lists the seven scopes of the specification and those of templates and email, each with a meaning", () => {
    expect([...scopes].sort()).toEqual([
      "*",
      "campaigns:read",
      "campaigns:write",
      "emails:read",
      "emails:send",
      "forms:read",
      "forms:write",
      "segments:read",
      "segments:write",
      "sequences:read",
      "sequences:write",
      "subscribers:delete",
      "subscribers:read",
      "subscribers:write",
      "tags:read",
      "tags:write",
      "templates:read",
      "templates:write",
      "triggers:read",
      "triggers:write",
      "webhooks:manage"
    ])
    for (const s of scopes) expect(scopeDescriptions[s].length).toBeGreaterThan(0)
  })

  it("a key with * may do everything", () => {
    for (const s of scopes) expect(allows(["*"], s)).toBe(true)
  })

  it("a key may do what it was granted and nothing else", () => {
    const granted: ReadonlyArray<Scope> = ["subscribers:read", "tags:read"]
    expect(allows(granted, "subscribers:read")).toBe(true)
    expect(allows(granted, "subscribers:write")).toBe(false)
    expect(allows(granted, "*")).toBe(false)
    expect(allows([], "subscribers:read")).toBe(false)
  })

  it("no one hands out scopes beyond their own", () => {
    expect(includesAll(["*"], ["subscribers:write", "*"])).toBe(true)
    expect(includesAll(["subscribers:read", "subscribers:write"], ["subscribers:read"])).toBe(true)
    expect(includesAll(["subscribers:read"], ["subscribers:read", "tags:read"])).toBe(false)
    expect(includesAll(["subscribers:read"], ["*"])).toBe(false)
    expect(includesAll([], [])).toBe(true)
  })

  it.prop("includesAll agrees with allows, scope by scope", [scopeSet, scopeSet], ([granted, wanted]) => {
    expect(includesAll(granted, wanted)).toBe(wanted.every((s) => granted.includes("*") || granted.includes(s)))
    expect(includesAll(granted, granted)).toBe(true)
  })
})
