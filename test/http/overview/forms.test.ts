/** Sign-up forms in the overview form: /v1/forms with PATCH, tags by name, the `data` envelope and numbered pages. */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startHttpServer, type TestHttpServer } from "../../support/http-server.js"
import { createTag, expectError, expectInvalid, uuidPattern } from "./helpers.js"

let server: TestHttpServer
beforeAll(async () => {
  server = await startHttpServer({ form: "overview" })
})
afterAll(() => server.close())

describe("/v1/forms", () => {
  it("creates, pages, changes and deletes forms in the envelope, naming tags by name", async () => {
    const { key } = await server.seedOrganization()
    const tag = await createTag(server, key)
    const created = await call(server, "POST", "/v1/forms", { key, json: { name: "Newsletter", tags: [tag.name] } })
    expect(created.status, created.text).toBe(201)
    expect(created.body.data).toMatchObject({
      id: expect.stringMatching(uuidPattern),
      name: "Newsletter",
      double_opt_in: true,
      tags: [{ id: tag.id, name: tag.name }]
    })
    const id = created.body.data.id
    await call(server, "POST", "/v1/forms", { key, json: { name: "Two", double_opt_in: false } })

    const page = await call(server, "GET", "/v1/forms?per_page=1&page=2", { key })
    expect(page.body.meta).toEqual({ total: 2, page: 2, per_page: 1, total_pages: 2 })
    expect(page.body.data[0]).toMatchObject({ name: "Two", double_opt_in: false })

    const patched = await call(server, "PATCH", `/v1/forms/${id}`, { key, json: { allowed_origins: ["https://example.com"] } })
    expect(patched.status, patched.text).toBe(200)
    expect(patched.body.data).toMatchObject({ name: "Newsletter", allowed_origins: ["https://example.com"], tags: [{ id: tag.id }] })

    expect((await call(server, "DELETE", `/v1/forms/${id}`, { key })).status).toBe(204)
    expectError(await call(server, "GET", `/v1/forms/${id}`, { key }), "not_found")
  })

  it("answers its errors in the error envelope", async () => {
    const { key } = await server.seedOrganization()
    expectInvalid(await call(server, "POST", "/v1/forms", { key, json: { name: "x", tags: ["No such tag"] } }), ["tags[0]"])
    expectInvalid(await call(server, "POST", "/v1/forms", { key, json: { name: "x", extra: 1 } }), ["extra"])
    expectInvalid(await call(server, "POST", "/v1/forms", { key, json: { name: "x", allowed_origins: ["example.com"] } }), [
      "allowed_origins[0]"
    ])
    const other = await server.seedOrganization()
    const theirs = await call(server, "POST", "/v1/forms", { key: other.key, json: { name: "x" } })
    expectError(await call(server, "PATCH", `/v1/forms/${theirs.body.data.id}`, { key, json: { name: "y" } }), "forbidden")
  })

  it("answers the HTML form a site embeds in the envelope, and refusals in the error envelope", async () => {
    const { key } = await server.seedOrganization()
    const created = await call(server, "POST", "/v1/forms", { key, json: { name: "Newsletter", consent_text: "Yes <please>" } })
    const id = created.body.data.id
    const answer = await call(server, "GET", `/v1/forms/${id}/embed?locale=de`, { key })
    expect(answer.status, answer.text).toBe(200)
    expect(Object.keys(answer.body)).toEqual(["data"])
    expect(answer.body.data.page_url).toBe(`http://localhost:3000/f/${id}`)
    expect(answer.body.data.html).toContain(`<form method="post" action="http://localhost:3000/f/${id}?locale=de"`)
    expect(answer.body.data.html).toContain("Yes &lt;please&gt;")
    expect(answer.body.data.html).toContain("E-Mail-Adresse")
    // The same at /api/v1, as every overview route.
    expect((await call(server, "GET", `/api/v1/forms/${id}/embed`, { key })).body.data.html).toContain("Email address")
    expectInvalid(await call(server, "GET", `/v1/forms/${id}/embed?locale=fr`, { key }), ["locale"])
    expectError(await call(server, "GET", "/v1/forms/0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10/embed", { key }), "not_found")
    const other = await server.seedOrganization()
    expectError(await call(server, "GET", `/v1/forms/${id}/embed`, { key: other.key }), "forbidden")
  })
})
