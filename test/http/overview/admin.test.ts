/**
 * The platform admin's area in the overview form (`API_FORM=overview`), over the real server: the
 * same use case as the reference form's, at `/v1/admin` with envelopes, numbered pages and PATCH.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../../support/http-server.js"
import { expectError, expectInvalid } from "./helpers.js"

let server: TestHttpServer
beforeAll(async () => {
  server = await startHttpServer({ form: "overview", adapters: UnlimitedRateLimiterLive })
})
afterAll(() => server.close())

describe("/v1/admin", () => {
  it("lists organizations in numbered pages, oldest first, and reads, changes and deletes one", async () => {
    const { key } = await server.seedOrganization({ isPlatformAdmin: true })
    const other = await server.createOrganization()
    const first = await call(server, "GET", "/v1/admin/organizations?per_page=1", { key })
    expect(first.status, first.text).toBe(200)
    expect(first.body.meta).toMatchObject({ page: 1, per_page: 1 })
    const total = first.body.meta.total as number
    const last = await call(server, "GET", `/v1/admin/organizations?per_page=1&page=${total}`, { key })
    expect(last.body.data.map((o: { id: string }) => o.id)).toEqual([other.id])

    const got = await call(server, "GET", `/v1/admin/organizations/${other.id}`, { key })
    expect(got.body.data).toMatchObject({ id: other.id, tier: "free", suspended: false, member_count: 0 })
    const changed = await call(server, "PATCH", `/v1/admin/organizations/${other.id}`, { key, json: { tier: "pro", suspended: true } })
    expect(changed.body.data).toMatchObject({ tier: "pro", suspended: true })
    expect((await call(server, "DELETE", `/v1/admin/organizations/${other.id}`, { key })).status).toBe(204)
    expectError(await call(server, "GET", `/v1/admin/organizations/${other.id}`, { key }), "not_found")
  })

  it("sets an enterprise organization's custom rate limit, and refuses one below enterprise naming the field", async () => {
    const { key } = await server.seedOrganization({ isPlatformAdmin: true })
    const other = await server.createOrganization({ tier: "enterprise" })
    const path = `/v1/admin/organizations/${other.id}`
    const set = await call(server, "PATCH", path, { key, json: { custom_rate_limit: 0 } })
    expect(set.status, set.text).toBe(200)
    expect(set.body.data).toMatchObject({ custom_rate_limit: 0, rate_limit_per_minute: null })
    expectInvalid(await call(server, "PATCH", path, { key, json: { tier: "free", custom_rate_limit: 10 } }), ["custom_rate_limit"])
    expect((await call(server, "GET", path, { key })).body.data).toMatchObject({ tier: "enterprise", custom_rate_limit: 0 })
  })

  it("adds, lists and removes members, and lists users in numbered pages", async () => {
    const { key } = await server.seedOrganization({ isPlatformAdmin: true })
    const organization = await server.createOrganization()
    const user = await server.signIn()
    const added = await call(server, "POST", `/v1/admin/organizations/${organization.id}/members`, {
      key,
      json: { user_id: user.userId, role: "member" }
    })
    expect(added.status, added.text).toBe(201)
    expect(added.body.data).toMatchObject({ user_id: user.userId, email: user.email, role: "member" })
    const members = await call(server, "GET", `/v1/admin/organizations/${organization.id}/members`, { key })
    expect(members.body.data.map((m: { user_id: string }) => m.user_id)).toEqual([user.userId])
    const got = await call(server, "GET", `/v1/admin/users/${user.userId}`, { key })
    expect(got.body.data.memberships).toEqual([{ organization_id: organization.id, organization_slug: organization.slug, role: "member" }])
    const users = await call(server, "GET", "/v1/admin/users?per_page=100", { key })
    expect(users.body.data.map((u: { id: string }) => u.id)).toContain(user.userId)
    expect(users.body.meta.total).toBeGreaterThanOrEqual(1)
    const path = `/v1/admin/organizations/${organization.id}/members/${user.userId}`
    expect((await call(server, "DELETE", path, { key })).status).toBe(204)
    expect((await call(server, "GET", `/v1/admin/organizations/${organization.id}/members`, { key })).body.data).toEqual([])
  })

  it("is refused to organizations without the platform-admin flag (403), and validates ids and pages (400)", async () => {
    const { key: plain } = await server.seedOrganization()
    expectError(await call(server, "GET", "/v1/admin/organizations", { key: plain }), "forbidden")
    const { key } = await server.seedOrganization({ isPlatformAdmin: true })
    expectInvalid(await call(server, "GET", "/v1/admin/organizations/not-an-id", { key }), ["id"])
    expectInvalid(await call(server, "GET", "/v1/admin/users?page=0", { key }), ["page"])
  })
})
