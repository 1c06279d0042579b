/**
 * API keys in the overview form (`API_FORM=overview`), over the real server: the same use case as
 * the reference form's, at `/v1/api-keys` with envelopes, numbered pages and PATCH.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startHttpServer, type TestHttpServer } from "../../support/http-server.js"
import { expectError, expectInvalid, isoInstantPattern, uuidPattern } from "./helpers.js"

let server: TestHttpServer
beforeAll(async () => {
  server = await startHttpServer({ form: "overview" })
})
afterAll(() => server.close())

describe("/v1/api-keys", () => {
  it("creates a key (201, shown in full once), reads, renames and lists it in numbered pages", async () => {
    const { key } = await server.seedOrganization()
    const created = await call(server, "POST", "/v1/api-keys", { key, json: { name: "CRM sync", scopes: ["subscribers:read"] } })
    expect(created.status, created.text).toBe(201)
    expect(created.body.data).toEqual({
      id: expect.stringMatching(uuidPattern),
      name: "CRM sync",
      prefix: expect.stringMatching(/^svc_live_/),
      last_four: created.body.data.key.slice(-4),
      scopes: ["subscribers:read"],
      environment: "live",
      created_at: expect.stringMatching(isoInstantPattern),
      last_used_at: null,
      revoked_at: null,
      key: expect.stringMatching(/^svc_live_/)
    })
    const id = created.body.data.id
    const got = await call(server, "GET", `/v1/api-keys/${id}`, { key })
    expect(got.body.data).not.toHaveProperty("key")
    const renamed = await call(server, "PATCH", `/v1/api-keys/${id}`, { key, json: { name: "CRM" } })
    expect(renamed.body.data).toMatchObject({ id, name: "CRM", scopes: ["subscribers:read"] })
    const page = await call(server, "GET", "/v1/api-keys?per_page=1&page=2", { key })
    expect(page.status).toBe(200)
    expect(page.body.meta).toEqual({ total: 2, page: 2, per_page: 1, total_pages: 2 })
    expect(page.body.data.map((k: { id: string }) => k.id)).toEqual([id])
    const scopes = await call(server, "GET", "/v1/api-keys/scopes", { key })
    expect(scopes.body.data).toContainEqual({ scope: "subscribers:read", description: expect.any(String) })
  })

  it("rotating gives a new key and the old one stops at once; a deleted key stops too", async () => {
    const { key } = await server.seedOrganization()
    const created = (await call(server, "POST", "/v1/api-keys", { key, json: { name: "Old", scopes: ["tags:read"] } })).body.data
    expect((await call(server, "GET", "/v1/tags", { key: created.key })).status).toBe(200)
    const rotated = await call(server, "POST", `/v1/api-keys/${created.id}/rotate`, { key })
    expect(rotated.status).toBe(200)
    expect(rotated.body.data.key).not.toBe(created.key)
    expectError(await call(server, "GET", "/v1/tags", { key: created.key }), "unauthorized")
    expect((await call(server, "GET", "/v1/tags", { key: rotated.body.data.key })).status).toBe(200)
    expect((await call(server, "DELETE", `/v1/api-keys/${created.id}`, { key })).status).toBe(204)
    expectError(await call(server, "GET", "/v1/tags", { key: rotated.body.data.key }), "unauthorized")
    expectError(await call(server, "GET", `/v1/api-keys/${created.id}`, { key }), "not_found")
  })

  it("refuses keys without `*` (403), bad bodies (400) and unknown ids (404), in the envelope", async () => {
    const { key } = await server.seedOrganization()
    const { key: member } = await server.seedOrganization({ scopes: ["subscribers:read", "subscribers:write"] })
    expectError(await call(server, "GET", "/v1/api-keys", { key: member }), "forbidden")
    expectInvalid(await call(server, "POST", "/v1/api-keys", { key, json: { name: "", scopes: ["nope"] } }), ["name", "scopes[0]"])
    expectError(await call(server, "GET", "/v1/api-keys/0192f3a4-0000-7000-8000-000000000000", { key }), "not_found")
    expectInvalid(await call(server, "GET", "/v1/api-keys?per_page=0", { key }), ["per_page"])
  })
})
