/** Notes in the overview form: /v1/subscribers/:id/notes with PATCH, the `data` envelope and numbered pages. */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startHttpServer, type TestHttpServer } from "../../support/http-server.js"
import { createSubscriber, expectError, expectInvalid } from "./helpers.js"

let server: TestHttpServer
beforeAll(async () => {
  server = await startHttpServer({ form: "overview" })
})
afterAll(() => server.close())

describe("/v1/subscribers/:id/notes", () => {
  it("adds, pages, changes and deletes notes in the envelope, under /v1 and /api/v1", async () => {
    const { key } = await server.seedOrganization()
    const reader = await createSubscriber(server, key)
    const first = await call(server, "POST", `/v1/subscribers/${reader.id}/notes`, { key, json: { body: "First" } })
    expect(first.status, first.text).toBe(201)
    expect(first.body.data).toMatchObject({ subscriber_id: reader.id, body: "First", author: { type: "api_key" } })
    await call(server, "POST", `/api/v1/subscribers/${reader.id}/notes`, { key, json: { body: "Second" } })
    const page = await call(server, "GET", `/v1/subscribers/${reader.id}/notes?per_page=1`, { key })
    expect(page.body.meta).toEqual({ total: 2, page: 1, per_page: 1, total_pages: 2 })
    expect(page.body.data[0].body).toBe("Second")
    const id = first.body.data.id
    const patched = await call(server, "PATCH", `/v1/subscribers/${reader.id}/notes/${id}`, { key, json: { body: "Changed" } })
    expect(patched.body.data.body).toBe("Changed")
    expect((await call(server, "DELETE", `/v1/subscribers/${reader.id}/notes/${id}`, { key })).status).toBe(204)
    expectError(await call(server, "GET", `/v1/subscribers/${reader.id}/notes/${id}`, { key }), "not_found")
  })

  it("answers its errors in the error envelope", async () => {
    const { key } = await server.seedOrganization()
    const reader = await createSubscriber(server, key)
    expectInvalid(await call(server, "POST", `/v1/subscribers/${reader.id}/notes`, { key, json: { body: "" } }), ["body"])
    const other = await server.seedOrganization()
    expectError(await call(server, "GET", `/v1/subscribers/${reader.id}/notes`, { key: other.key }), "forbidden")
  })
})
