/** Segments in the overview form: /v1/segments with PATCH, the `data` envelope and numbered pages. */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startHttpServer, type TestHttpServer } from "../../support/http-server.js"
import { expectError, expectInvalid, uuidPattern } from "./helpers.js"

let server: TestHttpServer
beforeAll(async () => {
  server = await startHttpServer({ form: "overview" })
})
afterAll(() => server.close())

const subscribe = async (key: string, email: string, metadata: Record<string, unknown>) => {
  const answer = await call(server, "POST", "/v1/subscribers", { key, json: { email, metadata } })
  expect(answer.status, answer.text).toBe(201)
  return answer.body.data
}

describe("/v1/segments", () => {
  it("creates, pages, changes, previews by page number and deletes segments in the envelope", async () => {
    const { key } = await server.seedOrganization()
    const ada = await subscribe(key, "ada@example.com", { plan: "pro", seats: 3 })
    const bob = await subscribe(key, "bob@example.com", { plan: "pro", seats: 12 })
    await subscribe(key, "cyd@example.com", { plan: "free" })

    const created = await call(server, "POST", "/v1/segments", {
      key,
      json: { name: "Pro", filter: { field: "metadata.plan", op: "eq", value: "pro" } }
    })
    expect(created.status, created.text).toBe(201)
    expect(created.body.data).toMatchObject({ id: expect.stringMatching(uuidPattern), name: "Pro", description: null })
    const id = created.body.data.id
    await call(server, "POST", "/v1/segments", { key, json: { name: "Two", filter: { all: [] } } })

    const page = await call(server, "GET", "/v1/segments?per_page=1&page=2", { key })
    expect(page.body.meta).toEqual({ total: 2, page: 2, per_page: 1, total_pages: 2 })
    expect(page.body.data[0].name).toBe("Two")

    const preview = await call(server, "POST", `/v1/segments/${id}/preview?per_page=1&page=2`, { key })
    expect(preview.status, preview.text).toBe(200)
    expect(preview.body.meta).toEqual({ total: 2, page: 2, per_page: 1, total_pages: 2 })
    expect(preview.body.data.map((s: { id: string }) => s.id)).toEqual([[ada.id, bob.id].sort()[1]])
    expect(preview.body.data[0]).toHaveProperty("first_name")

    const patched = await call(server, "PATCH", `/v1/segments/${id}`, {
      key,
      json: { filter: { all: [{ field: "metadata.plan", op: "eq", value: "pro" }, { field: "metadata.seats", op: "gt", value: 5 }] } }
    })
    expect(patched.status, patched.text).toBe(200)
    expect(patched.body.data.name).toBe("Pro")
    const narrowed = await call(server, "POST", `/v1/segments/${id}/preview`, { key })
    expect(narrowed.body.meta.total).toBe(1)
    expect(narrowed.body.data[0].id).toBe(bob.id)

    const unsaved = await call(server, "POST", "/v1/segments/preview", {
      key,
      json: { filter: { not: { field: "metadata.plan", op: "exists" } } }
    })
    expect(unsaved.body.meta.total).toBe(0)

    expect((await call(server, "DELETE", `/v1/segments/${id}`, { key })).status).toBe(204)
    expectError(await call(server, "GET", `/v1/segments/${id}`, { key }), "not_found")
  })

  it("answers its errors in the error envelope: the bad node's path, another organization's segment, scopes", async () => {
    const { key, organization } = await server.seedOrganization()
    expectInvalid(await call(server, "POST", "/v1/segments", {
      key,
      json: { name: "Bad", filter: { any: [{ field: "status", op: "eq", value: "active" }, { field: "created_at", op: "gt", value: "yesterday" }] } }
    }), ["filter.any[1].value"])
    expectInvalid(await call(server, "PATCH", `/v1/segments/0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10`, {
      key,
      json: { filter: { all: [{ field: "metadata.", op: "exists" }] } }
    }), ["filter.all[0].field"])
    const other = await server.seedOrganization()
    const theirs = await call(server, "POST", "/v1/segments", { key: other.key, json: { name: "Theirs", filter: { all: [] } } })
    expectError(await call(server, "GET", `/v1/segments/${theirs.body.data.id}`, { key }), "forbidden")
    expectError(await call(server, "PATCH", `/v1/segments/${theirs.body.data.id}`, { key, json: { name: "x" } }), "forbidden")
    expectError(await call(server, "GET", "/v1/segments/0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10", { key }), "not_found")
    const reader = await server.createApiKey(organization, ["segments:read"])
    expectError(await call(server, "POST", "/v1/segments", { key: reader, json: { name: "x", filter: { all: [] } } }), "forbidden")
    expectError(await call(server, "POST", "/v1/segments/preview", { key: reader, json: { filter: { all: [] } } }), "forbidden")
  })
})
