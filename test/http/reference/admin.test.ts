/**
 * /api/v1/admin: every organization, user and membership, for organizations with the
 * platform-admin flag acting with `*` (a key with `*` or an owner's session). Suspensions,
 * deletions and membership changes take effect on the next request.
 */
import { ApiKeyRepository, SubscriberRepository, TagRepository } from "@roster/application"
import { type OrganizationId, type Scope, SubscriberId, TagId } from "@roster/domain"
import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  type Answer,
  call,
  type CallOptions,
  type SignedInUser,
  startHttpServer,
  type TestHttpServer,
  UnlimitedRateLimiterLive
} from "../../support/http-server.js"
import { createSubscriber, createTag, expectInvalid, expectProblem, isoInstantPattern, uuidPattern } from "../helpers.js"

let server: TestHttpServer
beforeAll(async () => {
  // Many sign-ins from one client address; the limits on those are tested in auth-rate-limits.
  server = await startHttpServer({ adapters: UnlimitedRateLimiterLive })
})
afterAll(() => server.close())

const base = "/api/v1/admin"
const organizationsPath = `${base}/organizations`
const usersPath = `${base}/users`
const nothing = "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"

const refusal =
  "administration needs a platform-admin organization, acting with the scope * (an API key with *, or an owner's session)"

/** A platform-admin organization, made as operators make it, with a `*` key and a signed-in owner. */
const platformAdmin = async () => {
  const { key, organization } = await server.seedOrganization({ isPlatformAdmin: true })
  const owner = await server.signIn()
  await server.addMember(organization.id, owner, "owner")
  return { organization, key, owner, session: { headers: owner.headers(organization.id) } }
}

/** An ordinary organization with a `*` key and a signed-in member of `role`. */
const tenant = async (role: "owner" | "member" = "member") => {
  const { key, organization } = await server.seedOrganization()
  const user = await server.signIn()
  await server.addMember(organization.id, user, role)
  return { organization, key, user, session: { headers: user.headers(organization.id) } }
}

const get = (path: string, as: CallOptions) => call(server, "GET", path, as)

/** Every admin route, with a request that would succeed for a platform admin. */
const everyRoute = (organizationId: string, userId: string) => {
  const organization = `${organizationsPath}/${organizationId}`
  return [
    ["GET", organizationsPath, undefined],
    ["GET", organization, undefined],
    ["PATCH", organization, { name: "Taken over", suspended: true }],
    ["DELETE", organization, undefined],
    ["GET", `${organization}/members`, undefined],
    ["POST", `${organization}/members`, { user_id: userId, role: "owner" }],
    ["DELETE", `${organization}/members/${userId}`, undefined],
    ["GET", usersPath, undefined],
    ["GET", `${usersPath}/${userId}`, undefined]
  ] as const
}

/** Follows the `Link` header from `first` to the last page; checks every page's headers on the way. */
const walk = async (first: string, as: CallOptions) => {
  const pages: Array<Answer> = []
  let next: string | undefined = first
  while (next !== undefined) {
    const page = await get(next, as)
    expect(page.status, page.text).toBe(200)
    expect(page.headers.get("x-total-count")).toBe(String(page.body.total))
    const link = page.headers.get("link")
    if (page.body.next_cursor === null) {
      expect(link).toBeNull()
      next = undefined
    } else {
      expect(link).toMatch(/^<.+>; rel="next"$/)
      next = /^<(.+)>/.exec(link!)![1]!
      expect(new URL(next, server.baseUrl).searchParams.get("cursor")).toBe(page.body.next_cursor)
    }
    pages.push(page)
  }
  return pages
}

describe("who may administer", () => {
  it("a platform-admin organization, with its `*` key or its owner's session", async () => {
    const admin = await platformAdmin()
    for (const as of [{ key: admin.key }, admin.session]) {
      const answer = await get(organizationsPath, as)
      expect(answer.status, answer.text).toBe(200)
      expect(answer.body.items.map((o: { id: string }) => o.id)).toContain(admin.organization.id)
    }
  })

  const refusedCallers: ReadonlyArray<readonly [string, () => Promise<CallOptions>]> = [
    ["an ordinary organization's `*` key", async () => ({ key: (await tenant()).key })],
    ["an ordinary organization's owner session", async () => (await tenant("owner")).session],
    ["a platform-admin organization's member session", async () => {
      const { organization } = await platformAdmin()
      const member = await server.signIn()
      await server.addMember(organization.id, member, "member")
      return { headers: member.headers(organization.id) }
    }],
    ["a platform-admin organization's key without `*`", async () => {
      const { organization } = await platformAdmin()
      const everyScopeButAll: ReadonlyArray<Scope> = [
        "subscribers:read",
        "subscribers:write",
        "subscribers:delete",
        "tags:read",
        "tags:write",
        "templates:read",
        "templates:write",
        "emails:send",
        "emails:read",
        "webhooks:manage"
      ]
      return { key: await server.createApiKey(organization, everyScopeButAll) }
    }]
  ]
  for (const [label, caller] of refusedCallers) {
    it(`refuses ${label} with 403 on every route, and changes nothing`, async () => {
      const admin = await platformAdmin()
      const target = await tenant()
      const as = await caller()
      for (const [method, path, json] of everyRoute(target.organization.id, target.user.userId)) {
        const answer = await call(server, method, path, { ...as, json })
        expectProblem(answer, "forbidden", path)
        expect(answer.body.detail).toBe(refusal)
      }
      const after = await get(`${organizationsPath}/${target.organization.id}`, { key: admin.key })
      expect(after.body).toMatchObject({ name: target.organization.name, suspended: false })
      const members = await get(`${organizationsPath}/${target.organization.id}/members`, { key: admin.key })
      expect(members.body.items).toEqual([expect.objectContaining({ user_id: target.user.userId, role: "member" })])
      expect((await get("/api/v1/tags", { key: target.key })).status).toBe(200)
    })
  }

  it("answers 401 without credentials", async () => {
    expectProblem(await get(organizationsPath, {}), "unauthorized", organizationsPath)
    expectProblem(await get(usersPath, {}), "unauthorized", usersPath)
  })

  it("follows the platform-admin flag at once, both ways", async () => {
    const admin = await platformAdmin()
    const other = await tenant()
    const target = `${organizationsPath}/${other.organization.id}`
    expectProblem(await get(organizationsPath, { key: other.key }), "forbidden", organizationsPath)
    const flagged = await call(server, "PATCH", target, { key: admin.key, json: { is_platform_admin: true } })
    expect(flagged.status, flagged.text).toBe(200)
    expect(flagged.body.is_platform_admin).toBe(true)
    expect((await get(organizationsPath, { key: other.key })).status).toBe(200)
    await call(server, "PATCH", target, { key: admin.key, json: { is_platform_admin: false } })
    expectProblem(await get(organizationsPath, { key: other.key }), "forbidden", organizationsPath)
  })
})

describe("GET /api/v1/admin/organizations", () => {
  it("lists every organization oldest first, with member and subscriber counts, page by page", async () => {
    const admin = await platformAdmin()
    const busy = await tenant("owner")
    const colleague = await server.signIn()
    await server.addMember(busy.organization.id, colleague, "member")
    await createSubscriber(server, busy.key)
    await createSubscriber(server, busy.key)
    const empty = await server.createOrganization({ tier: "pro" })

    const pages = await walk(`${organizationsPath}?limit=2`, { key: admin.key })
    const items = pages.flatMap((page) => page.body.items)
    for (const page of pages) {
      expect(page.body.items.length).toBeLessThanOrEqual(2)
      expect(page.body.total).toBe(items.length)
    }
    expect(pages.length).toBe(Math.ceil(items.length / 2))
    expect(new Set(items.map((o: { id: string }) => o.id)).size).toBe(items.length)
    const created = items.map((o: { created_at: string }) => o.created_at)
    expect([...created].sort()).toEqual(created)

    const byId = new Map(items.map((o: { id: string }) => [o.id, o]))
    expect(byId.get(busy.organization.id)).toEqual({
      id: busy.organization.id,
      name: busy.organization.name,
      slug: busy.organization.slug,
      tier: "free",
      is_platform_admin: false,
      suspended: false,
      suspended_at: null,
      rate_limit_per_minute: 100,
      custom_rate_limit: null,
      subscriber_count: 2,
      member_count: 2,
      created_at: busy.organization.createdAt.toISOString(),
      updated_at: busy.organization.updatedAt.toISOString()
    })
    expect(byId.get(empty.id)).toMatchObject({ tier: "pro", subscriber_count: 0, member_count: 0 })
    expect(byId.get(admin.organization.id)).toMatchObject({ is_platform_admin: true, member_count: 1 })
  })

  it("answers every organization to the admin's owner session too, 50 to a page by default", async () => {
    const admin = await platformAdmin()
    const answer = await get(organizationsPath, admin.session)
    expect(answer.status).toBe(200)
    expect(answer.body.items.length).toBe(Math.min(50, answer.body.total))
  })

  const badQueries: ReadonlyArray<readonly [string, string]> = [
    ["limit=0", "limit"],
    ["limit=101", "limit"],
    ["limit=ten", "limit"],
    ["cursor=not-a-cursor", "cursor"],
    ["sort=name", "sort"]
  ]
  for (const [query, field] of badQueries) {
    it(`answers 400 validation_error naming ${field} for ?${query}`, async () => {
      const admin = await platformAdmin()
      expectInvalid(await get(`${organizationsPath}?${query}`, { key: admin.key }), organizationsPath, [field])
    })
  }
})

describe("GET /api/v1/admin/organizations/{id}", () => {
  it("answers the organization as the list shows it", async () => {
    const admin = await platformAdmin()
    const target = await tenant()
    const answer = await get(`${organizationsPath}/${target.organization.id}`, { key: admin.key })
    expect(answer.status).toBe(200)
    expect(answer.body).toEqual({
      id: target.organization.id,
      name: target.organization.name,
      slug: target.organization.slug,
      tier: "free",
      is_platform_admin: false,
      suspended: false,
      suspended_at: null,
      rate_limit_per_minute: 100,
      custom_rate_limit: null,
      subscriber_count: 0,
      member_count: 1,
      created_at: expect.stringMatching(isoInstantPattern),
      updated_at: expect.stringMatching(isoInstantPattern)
    })
  })

  it("answers 404 not_found for an organization that does not exist, 400 for an id that is not one", async () => {
    const admin = await platformAdmin()
    const missing = `${organizationsPath}/${nothing}`
    expectProblem(await get(missing, { key: admin.key }), "not_found", missing)
    const bad = `${organizationsPath}/not-a-uuid`
    expectInvalid(await get(bad, { key: admin.key }), bad, ["organization_id"])
  })
})

describe("PATCH /api/v1/admin/organizations/{id}", () => {
  it("renames an organization and moves it to another tier; the slug stays", async () => {
    const admin = await platformAdmin()
    const target = await tenant()
    const path = `${organizationsPath}/${target.organization.id}`
    const before = (await get(path, { key: admin.key })).body
    const answer = await call(server, "PATCH", path, { key: admin.key, json: { name: "  Renamed Ltd  ", tier: "enterprise" } })
    expect(answer.status, answer.text).toBe(200)
    expect(answer.body).toEqual({
      ...before,
      name: "Renamed Ltd",
      tier: "enterprise",
      rate_limit_per_minute: 10_000,
      updated_at: expect.stringMatching(isoInstantPattern)
    })
    expect(answer.body.updated_at >= before.updated_at).toBe(true)
    expect((await get(path, { key: admin.key })).body).toEqual(answer.body)
    const unchanged = await call(server, "PATCH", path, { key: admin.key, json: {} })
    expect(unchanged.body).toEqual({ ...answer.body, updated_at: expect.stringMatching(isoInstantPattern) })
  })

  it("suspends an organization: its key and its members' sessions answer 401 at once, until the suspension is lifted", async () => {
    const admin = await platformAdmin()
    const target = await tenant()
    const path = `${organizationsPath}/${target.organization.id}`
    expect((await get("/api/v1/tags", { key: target.key })).status).toBe(200)
    expect((await get("/api/v1/tags", target.session)).status).toBe(200)

    const suspended = await call(server, "PATCH", path, { key: admin.key, json: { suspended: true } })
    expect(suspended.status, suspended.text).toBe(200)
    expect(suspended.body).toMatchObject({ suspended: true, suspended_at: expect.stringMatching(isoInstantPattern) })
    for (const as of [{ key: target.key }, target.session]) {
      const answer = await get("/api/v1/tags", as)
      expectProblem(answer, "unauthorized", "/api/v1/tags")
      expect(answer.body.detail).toBe("the organization is suspended")
    }
    const again = await call(server, "PATCH", path, { key: admin.key, json: { suspended: true } })
    expect(again.body.suspended_at).toBe(suspended.body.suspended_at)

    const lifted = await call(server, "PATCH", path, { key: admin.key, json: { suspended: false } })
    expect(lifted.status, lifted.text).toBe(200)
    expect(lifted.body).toMatchObject({ suspended: false, suspended_at: null })
    expect((await get("/api/v1/tags", { key: target.key })).status).toBe(200)
    expect((await get("/api/v1/tags", target.session)).status).toBe(200)
  })

  it("lets the acting organization rename itself, but not suspend itself or drop its flag (400)", async () => {
    const admin = await platformAdmin()
    const path = `${organizationsPath}/${admin.organization.id}`
    for (const as of [{ key: admin.key }, admin.session]) {
      expectInvalid(await call(server, "PATCH", path, { ...as, json: { suspended: true } }), path, ["suspended"])
      expectInvalid(
        await call(server, "PATCH", path, { ...as, json: { is_platform_admin: false } }),
        path,
        ["is_platform_admin"]
      )
    }
    const renamed = await call(server, "PATCH", path, {
      key: admin.key,
      json: { name: "Platform HQ", suspended: false, is_platform_admin: true }
    })
    expect(renamed.status, renamed.text).toBe(200)
    expect(renamed.body).toMatchObject({ name: "Platform HQ", suspended: false, is_platform_admin: true })
    expect((await get(organizationsPath, { key: admin.key })).status).toBe(200)
    expect((await get(organizationsPath, admin.session)).status).toBe(200)
  })

  it("sets an enterprise organization's custom rate limit, clears it with null, and drops it on a move below enterprise", async () => {
    const admin = await platformAdmin()
    const target = await tenant()
    const path = `${organizationsPath}/${target.organization.id}`
    expect((await get(path, { key: admin.key })).body).toMatchObject({ rate_limit_per_minute: 100, custom_rate_limit: null })
    const set = await call(server, "PATCH", path, { key: admin.key, json: { tier: "enterprise", custom_rate_limit: 50_000 } })
    expect(set.status, set.text).toBe(200)
    expect(set.body).toMatchObject({ tier: "enterprise", rate_limit_per_minute: 50_000, custom_rate_limit: 50_000 })
    const none = await call(server, "PATCH", path, { key: admin.key, json: { custom_rate_limit: 0 } })
    expect(none.body).toMatchObject({ rate_limit_per_minute: null, custom_rate_limit: 0 })
    const cleared = await call(server, "PATCH", path, { key: admin.key, json: { custom_rate_limit: null } })
    expect(cleared.body).toMatchObject({ rate_limit_per_minute: 10_000, custom_rate_limit: null })
    await call(server, "PATCH", path, { key: admin.key, json: { custom_rate_limit: 20 } })
    const down = await call(server, "PATCH", path, { key: admin.key, json: { tier: "pro" } })
    expect(down.body).toMatchObject({ tier: "pro", rate_limit_per_minute: 1000, custom_rate_limit: null })
  })

  it("refuses a custom rate limit below enterprise with 400 naming the plan's rate, and changes nothing", async () => {
    const admin = await platformAdmin()
    const target = await tenant()
    const path = `${organizationsPath}/${target.organization.id}`
    const before = (await get(path, { key: admin.key })).body
    const refused = await call(server, "PATCH", path, { key: admin.key, json: { tier: "pro", custom_rate_limit: 5000 } })
    expectInvalid(refused, path, ["custom_rate_limit"])
    expect(refused.text).toContain("a custom rate limit needs the enterprise plan; pro allows 1000 requests a minute")
    expect((await get(path, { key: admin.key })).body).toEqual(before)
  })

  const refused: ReadonlyArray<readonly [string, unknown, ReadonlyArray<string>]> = [
    ["a custom rate limit below 0", { custom_rate_limit: -1 }, ["custom_rate_limit"]],
    ["a custom rate limit that is not a whole number", { custom_rate_limit: 2.5 }, ["custom_rate_limit"]],
    ["a tier that does not exist", { tier: "gold" }, ["tier"]],
    ["suspended as a string", { suspended: "yes" }, ["suspended"]],
    ["is_platform_admin as a number", { is_platform_admin: 1 }, ["is_platform_admin"]],
    ["a blank name", { name: "   " }, ["name"]],
    ["a field it may not set", { slug: "new-slug", subscriber_count: 0 }, ["slug", "subscriber_count"]],
    ["a body that is not an object", ["suspended"], ["body"]]
  ]
  for (const [label, json, fields] of refused) {
    it(`answers 400 validation_error for ${label}, and changes nothing`, async () => {
      const admin = await platformAdmin()
      const target = await tenant()
      const path = `${organizationsPath}/${target.organization.id}`
      const before = (await get(path, { key: admin.key })).body
      expectInvalid(await call(server, "PATCH", path, { key: admin.key, json }), path, fields)
      expect((await get(path, { key: admin.key })).body).toEqual(before)
    })
  }

  it("answers 404 not_found for an organization that does not exist", async () => {
    const admin = await platformAdmin()
    const path = `${organizationsPath}/${nothing}`
    expectProblem(await call(server, "PATCH", path, { key: admin.key, json: { name: "Ghost" } }), "not_found", path)
  })
})

describe("DELETE /api/v1/admin/organizations/{id}", () => {
  it("deletes the organization with its subscribers, tags, keys and memberships", async () => {
    const admin = await platformAdmin()
    const target = await tenant()
    const tag = await createTag(server, target.key)
    const subscriber = await createSubscriber(server, target.key, { tags: [tag.id] })
    const created = await call(server, "POST", "/api/v1/api-keys", { key: target.key, json: { name: "Second", scopes: ["*"] } })
    expect(created.status, created.text).toBe(201)
    const path = `${organizationsPath}/${target.organization.id}`

    const answer = await call(server, "DELETE", path, { key: admin.key })
    expect(answer.status, answer.text).toBe(204)
    expect(answer.text).toBe("")

    for (const key of [target.key, created.body.key as string]) {
      expectProblem(await get("/api/v1/tags", { key }), "unauthorized", "/api/v1/tags")
    }
    expectProblem(await get("/api/v1/tags", target.session), "forbidden", "/api/v1/tags")
    expectProblem(await get(path, { key: admin.key }), "not_found", path)
    expectProblem(await call(server, "DELETE", path, { key: admin.key }), "not_found", path)
    expectProblem(await get(`${path}/members`, { key: admin.key }), "not_found", `${path}/members`)
    expect((await get(`${usersPath}/${target.user.userId}`, { key: admin.key })).body.memberships).toEqual([])

    const other = await tenant()
    const elsewhere = `/api/v1/subscribers/${subscriber.id}`
    expectProblem(await get(elsewhere, { key: other.key }), "not_found", elsewhere)
    const left = await server.run(Effect.all({
      subscriber: Effect.flatMap(SubscriberRepository, (r) => r.organizationOf(SubscriberId.make(subscriber.id))),
      tag: Effect.flatMap(TagRepository, (r) => r.organizationOf(TagId.make(tag.id))),
      keys: Effect.flatMap(ApiKeyRepository, (r) => r.listByOrganization(target.organization.id as OrganizationId))
    }))
    expect(left).toEqual({ subscriber: Option.none(), tag: Option.none(), keys: [] })
  })

  it("does not let the acting organization delete itself (400), with its key or its owner's session", async () => {
    const admin = await platformAdmin()
    const path = `${organizationsPath}/${admin.organization.id}`
    for (const as of [{ key: admin.key }, admin.session]) {
      expectInvalid(await call(server, "DELETE", path, as), path, ["organization_id"])
    }
    expect((await get(path, { key: admin.key })).status).toBe(200)
  })
})

describe("members of an organization", () => {
  const membersOf = (organizationId: string) => `${organizationsPath}/${organizationId}/members`

  it("lists the members, oldest first, with email and role", async () => {
    const admin = await platformAdmin()
    const target = await tenant("owner")
    const second = await server.signIn()
    await server.addMember(target.organization.id, second, "member")
    const answer = await get(membersOf(target.organization.id), { key: admin.key })
    expect(answer.status).toBe(200)
    expect(answer.body).toEqual({
      items: [
        { user_id: target.user.userId, email: target.user.email, role: "owner", created_at: expect.stringMatching(isoInstantPattern) },
        { user_id: second.userId, email: second.email, role: "member", created_at: expect.stringMatching(isoInstantPattern) }
      ],
      total: 2
    })
  })

  it("adds a member who can act at once with the role, changes the role, and removes the member at once", async () => {
    const admin = await platformAdmin()
    const target = await tenant("owner")
    const path = membersOf(target.organization.id)
    const newcomer: SignedInUser = await server.signIn()
    const headers = newcomer.headers(target.organization.id)
    expectProblem(await get("/api/v1/tags", { headers }), "forbidden", "/api/v1/tags")

    const added = await call(server, "POST", path, { key: admin.key, json: { user_id: newcomer.userId, role: "member" } })
    expect(added.status, added.text).toBe(201)
    expect(added.body).toEqual({
      user_id: newcomer.userId,
      email: newcomer.email,
      role: "member",
      created_at: expect.stringMatching(isoInstantPattern)
    })
    expect((await get("/api/v1/tags", { headers })).status).toBe(200)
    expectProblem(await get("/api/v1/api-keys", { headers }), "forbidden", "/api/v1/api-keys")
    expect((await get(`${organizationsPath}/${target.organization.id}`, { key: admin.key })).body.member_count).toBe(2)

    const promoted = await call(server, "POST", path, {
      key: admin.key,
      json: { user_id: newcomer.userId.toUpperCase(), role: "owner" }
    })
    expect(promoted.status, promoted.text).toBe(201)
    expect(promoted.body).toEqual({ ...added.body, role: "owner" })
    expect((await get("/api/v1/api-keys", { headers })).status).toBe(200)
    expect((await get(path, { key: admin.key })).body.total).toBe(2)

    const removed = await call(server, "DELETE", `${path}/${newcomer.userId}`, admin.session)
    expect(removed.status, removed.text).toBe(204)
    expectProblem(await get("/api/v1/tags", { headers }), "forbidden", "/api/v1/tags")
    expect((await get(path, { key: admin.key })).body.items.map((m: { user_id: string }) => m.user_id)).toEqual([
      target.user.userId
    ])
    const gone = `${path}/${newcomer.userId}`
    const again = await call(server, "DELETE", gone, { key: admin.key })
    expectProblem(again, "not_found", gone)
    expect(again.body.detail).toBe(`user ${newcomer.userId} is not a member of the organization`)
  })

  it("answers 404 not_found for an organization or a user that does not exist", async () => {
    const admin = await platformAdmin()
    const target = await tenant()
    const missingOrganization = membersOf(nothing)
    expectProblem(await get(missingOrganization, { key: admin.key }), "not_found", missingOrganization)
    expectProblem(
      await call(server, "POST", missingOrganization, { key: admin.key, json: { user_id: target.user.userId, role: "member" } }),
      "not_found",
      missingOrganization
    )
    expectProblem(
      await call(server, "DELETE", `${missingOrganization}/${target.user.userId}`, { key: admin.key }),
      "not_found",
      `${missingOrganization}/${target.user.userId}`
    )
    const path = membersOf(target.organization.id)
    const noUser = await call(server, "POST", path, { key: admin.key, json: { user_id: nothing, role: "member" } })
    expectProblem(noUser, "not_found", path)
    expect(noUser.body.detail).toBe(`no user ${nothing}`)
    expect((await get(path, { key: admin.key })).body.total).toBe(1)
  })

  const refused: ReadonlyArray<readonly [string, (userId: string) => unknown, ReadonlyArray<string>]> = [
    ["a role that does not exist", (userId) => ({ user_id: userId, role: "admin" }), ["role"]],
    ["no role", (userId) => ({ user_id: userId }), ["role"]],
    ["a user id that is not one", () => ({ user_id: "someone", role: "member" }), ["user_id"]],
    ["a field it may not set", (userId) => ({ user_id: userId, role: "member", created_at: "2020-01-01T00:00:00.000Z" }), [
      "created_at"
    ]]
  ]
  for (const [label, body, fields] of refused) {
    it(`answers 400 validation_error for ${label}`, async () => {
      const admin = await platformAdmin()
      const target = await tenant()
      const newcomer = await server.signIn()
      const path = membersOf(target.organization.id)
      expectInvalid(await call(server, "POST", path, { key: admin.key, json: body(newcomer.userId) }), path, fields)
      expect((await get(path, { key: admin.key })).body.total).toBe(1)
    })
  }
})

describe("users", () => {
  it("lists every user oldest first with their memberships, page by page", async () => {
    const admin = await platformAdmin()
    const first = await tenant("owner")
    const user = first.user
    const second = await tenant()
    await server.addMember(second.organization.id, user, "member")
    const loner = await server.signIn()

    const pages = await walk(`${usersPath}?limit=3`, { key: admin.key })
    const items = pages.flatMap((page) => page.body.items)
    for (const page of pages) expect(page.body.total).toBe(items.length)
    expect(new Set(items.map((u: { id: string }) => u.id)).size).toBe(items.length)
    const created = items.map((u: { created_at: string }) => u.created_at)
    expect([...created].sort()).toEqual(created)

    const byId = new Map(items.map((u: { id: string }) => [u.id, u]))
    expect(byId.get(user.userId)).toEqual({
      id: user.userId,
      email: user.email,
      created_at: expect.stringMatching(isoInstantPattern),
      last_signed_in_at: expect.stringMatching(isoInstantPattern),
      memberships: [
        { organization_id: first.organization.id, organization_slug: first.organization.slug, role: "owner" },
        { organization_id: second.organization.id, organization_slug: second.organization.slug, role: "member" }
      ]
    })
    expect(byId.get(loner.userId)).toMatchObject({ email: loner.email, memberships: [] })
    expect(byId.get(admin.owner.userId)).toMatchObject({
      memberships: [{ organization_id: admin.organization.id, organization_slug: admin.organization.slug, role: "owner" }]
    })
  })

  it("answers one user with their memberships, and 404 for a user that does not exist", async () => {
    const admin = await platformAdmin()
    const target = await tenant("owner")
    const path = `${usersPath}/${target.user.userId}`
    const answer = await get(path, admin.session)
    expect(answer.status).toBe(200)
    expect(answer.body).toEqual({
      id: expect.stringMatching(uuidPattern),
      email: target.user.email,
      created_at: expect.stringMatching(isoInstantPattern),
      last_signed_in_at: expect.stringMatching(isoInstantPattern),
      memberships: [{ organization_id: target.organization.id, organization_slug: target.organization.slug, role: "owner" }]
    })
    expect(answer.body.id).toBe(target.user.userId)
    const missing = `${usersPath}/${randomUUID()}`
    expectProblem(await get(missing, { key: admin.key }), "not_found", missing)
    const bad = `${usersPath}/nobody`
    expectInvalid(await get(bad, { key: admin.key }), bad, ["user_id"])
  })

  it("answers 400 validation_error for a page size out of range", async () => {
    const admin = await platformAdmin()
    expectInvalid(await get(`${usersPath}?limit=500`, { key: admin.key }), usersPath, ["limit"])
  })
})
