import { describe, expect, it } from "@effect/vitest"
import { allows, scopes } from "./scope.js"
import { roleScopes } from "./membership.js"

describe("roles", () => {
  it("an owner may do everything, API keys, billing and settings included", () => {
    for (const scope of scopes) expect(allows(roleScopes.owner, scope)).toBe(true)
  })

  it("a member works on subscribers, tags, templates, email, campaigns, triggers and segments, and nothing that needs *", () => {
    expect(roleScopes.member).toEqual([
      "subscribers:read",
      "subscribers:write",
      "subscribers:delete",
      "tags:read",
      "tags:write",
      "templates:read",
      "templates:write",
      "emails:send",
      "emails:read",
      "campaigns:read",
      "campaigns:write",
      "triggers:read",
      "triggers:write",
      "sequences:read",
      "sequences:write",
      "forms:read",
      "forms:write",
      "segments:read",
      "segments:write"
    ])
    expect(allows(roleScopes.member, "*")).toBe(false)
    expect(allows(roleScopes.member, "webhooks:manage")).toBe(false)
  })
})
