import { describe, expect, it } from "@effect/vitest"
import { ApiKeys, Ids, Organizations } from "@roster/application"
import { Slug } from "@roster/domain"
import { Effect } from "effect"
import { UseCasesInMemory } from "./test-kit.js"

const inMemory = <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.provide(self, UseCasesInMemory)

const anOrganization = (tier: "free" | "pro" | "enterprise" = "free") =>
  Effect.gen(function*() {
    const slug = Slug.make(`org-${yield* (yield* Ids).next}`)
    return yield* (yield* Organizations).create({ name: "Acme", slug, tier })
  })

describe("organizations, as operators manage them", () => {
  it.effect("lists every organization oldest first, a page at a time", () =>
    inMemory(Effect.gen(function*() {
      const organizations = yield* Organizations
      const made = [yield* anOrganization(), yield* anOrganization(), yield* anOrganization()]
      const seen: Array<string> = []
      let cursor: string | undefined
      do {
        const page = yield* organizations.list({ limit: 2, cursor })
        expect(page.items.length).toBeLessThanOrEqual(2)
        expect(page.total).toBeGreaterThanOrEqual(3)
        seen.push(...page.items.map((o) => o.organization.id))
        cursor = page.nextCursor ?? undefined
      } while (cursor !== undefined)
      expect(seen.filter((id) => made.some((o) => o.id === id))).toStrictEqual(made.map((o) => o.id))
      expect(yield* Effect.flip(organizations.list({ limit: 2, cursor: "nonsense" }))).toMatchObject({ _tag: "InvalidInput", field: "cursor" })
    })))

  it.effect("shows an organization by slug with its member count, rate and plan limits; an unknown slug is not found", () =>
    inMemory(Effect.gen(function*() {
      const organizations = yield* Organizations
      const organization = yield* anOrganization("pro")
      expect(yield* organizations.show(organization.slug)).toStrictEqual({
        organization,
        memberCount: 0,
        requestsPerMinute: 1_000,
        subscriberLimit: 100_000,
        emailLimit: 1_000_000
      })
      expect(yield* Effect.flip(organizations.show("no-such-org"))).toMatchObject({ _tag: "ResourceNotFound", resource: "organization" })
    })))

  it.effect("changes an organization by the platform admin's rules: a custom rate limit only on enterprise", () =>
    inMemory(Effect.gen(function*() {
      const organizations = yield* Organizations
      const organization = yield* anOrganization("pro")
      const refused = yield* Effect.flip(organizations.update(organization.slug, { customRateLimit: 5_000 }))
      expect(refused).toMatchObject({ _tag: "InvalidInput", field: "custom_rate_limit" })
      const moved = yield* organizations.update(organization.slug, { tier: "enterprise", customRateLimit: 5_000, name: "Acme Corp" })
      expect(moved.organization).toMatchObject({ tier: "enterprise", customRateLimit: 5_000, name: "Acme Corp", requestsPerMinute: 5_000 })
      const down = yield* organizations.update(organization.slug, { tier: "free" })
      expect(down.organization).toMatchObject({ tier: "free", customRateLimit: null, requestsPerMinute: 100 })
      const flagged = yield* organizations.update(organization.slug, { isPlatformAdmin: true, suspended: true })
      expect(flagged.organization.isPlatformAdmin).toBe(true)
      expect(flagged.organization.suspendedAt).toBeInstanceOf(Date)
      expect(yield* Effect.flip(organizations.update("no-such-org", { name: "X" }))).toMatchObject({ _tag: "ResourceNotFound" })
    })))

  it.effect("a suspension takes effect on the organization's keys at once", () =>
    inMemory(Effect.gen(function*() {
      const organization = yield* anOrganization()
      const apiKeys = yield* ApiKeys
      const { key } = yield* apiKeys.create({ organizationId: organization.id, name: "k", scopes: ["*"], environment: "live" })
      yield* apiKeys.authenticate(key)
      yield* (yield* Organizations).update(organization.slug, { suspended: true })
      expect((yield* Effect.flip(apiKeys.authenticate(key))).reason).toBe("the organization is suspended")
    })))
})
