/**
 * Webhook endpoints in the overview form (`API_FORM=overview`), over the real server: GET and POST
 * /webhooks and DELETE /webhooks/:id, under /v1 and the same under /api/v1, with numbered pages,
 * the `data` envelope and errors in the `error` envelope.
 */
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startHttpServer, type TestHttpServer } from "../../support/http-server.js"
import { expectError, expectInvalid, isoInstantPattern, uuidPattern } from "./helpers.js"

let server: TestHttpServer
beforeAll(async () => {
  server = await startHttpServer({ form: "overview" })
})
afterAll(() => server.close())

/** A public address, judged without a name to resolve; nothing is ever sent to it. */
const publicUrl = "https://93.184.215.14/hooks/roster"
const nothing = "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"

const createWebhook = async (key: string, json: Record<string, unknown> = {}, prefix = "/v1") => {
  const answer = await call(server, "POST", `${prefix}/webhooks`, { key, json: { url: publicUrl, ...json } })
  expect(answer.status, answer.text).toBe(201)
  return answer.body.data
}

describe("POST /v1/webhooks", () => {
  it("answers 201 with the endpoint and its signing secret in `data`, in the reference form's field names", async () => {
    const { key } = await server.seedOrganization()
    const answer = await call(server, "POST", "/v1/webhooks", {
      key,
      json: { url: publicUrl, events: ["subscriber.created"], description: "CRM" }
    })
    expect(answer.status, answer.text).toBe(201)
    expect(Object.keys(answer.body)).toEqual(["data"])
    expect(answer.body.data).toEqual({
      id: expect.stringMatching(uuidPattern),
      url: publicUrl,
      events: ["subscriber.created"],
      description: "CRM",
      status: "active",
      disabled_reason: null,
      signing_secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+=*$/),
      created_at: expect.stringMatching(isoInstantPattern),
      updated_at: expect.stringMatching(isoInstantPattern)
    })
  })

  it("answers 400 validation_error in the error envelope, naming the field", async () => {
    const { key } = await server.seedOrganization()
    const cases: ReadonlyArray<readonly [unknown, ReadonlyArray<string>]> = [
      [{}, ["url"]],
      [{ url: "ftp://example.com/hooks" }, ["url"]],
      [{ url: "http://127.0.0.1:8080/hooks" }, ["url"]],
      [{ url: "http://169.254.169.254/" }, ["url"]],
      [{ url: publicUrl, events: ["subscriber.exploded"] }, ["events[0]"]],
      [{ url: publicUrl, events: [] }, ["events"]],
      [{ url: publicUrl, organization_id: randomUUID() }, ["organization_id"]]
    ]
    for (const [json, fields] of cases) {
      expectInvalid(await call(server, "POST", "/v1/webhooks", { key, json }), fields)
    }
    expect((await call(server, "GET", "/v1/webhooks", { key })).body.meta.total).toBe(0)
  })

  it("answers 403 forbidden in the envelope to a key without webhooks:manage, and 401 without a key", async () => {
    const { key } = await server.seedOrganization({ scopes: ["subscribers:write", "tags:write"] })
    expectError(await call(server, "POST", "/v1/webhooks", { key, json: { url: publicUrl } }), "forbidden")
    expectError(await call(server, "GET", "/v1/webhooks", { key }), "forbidden")
    expectError(await call(server, "GET", "/v1/webhooks"), "unauthorized")
  })
})

describe("GET /v1/webhooks", () => {
  it("lists numbered pages of the organization's endpoints, oldest first, without the secrets", async () => {
    const { key } = await server.seedOrganization()
    const made = []
    for (const description of ["one", "two", "three"]) made.push(await createWebhook(key, { description }))
    await createWebhook((await server.seedOrganization()).key, { description: "someone else's" })

    const all = await call(server, "GET", "/v1/webhooks", { key })
    expect(all.status, all.text).toBe(200)
    expect(Object.keys(all.body)).toEqual(["data", "meta"])
    expect(all.body.meta).toEqual({ total: 3, page: 1, per_page: 50, total_pages: 1 })
    expect(all.body.data.map((w: { description: string }) => w.description)).toEqual(["one", "two", "three"])
    const { signing_secret: _secret, ...first } = made[0]
    expect(all.body.data[0]).toEqual(first)
    for (const webhook of made) expect(all.text).not.toContain(webhook.signing_secret)

    const second = await call(server, "GET", "/v1/webhooks?page=2&per_page=2", { key })
    expect(second.body.meta).toEqual({ total: 3, page: 2, per_page: 2, total_pages: 2 })
    expect(second.body.data.map((w: { id: string }) => w.id)).toEqual([made[2].id])
    const beyond = await call(server, "GET", "/v1/webhooks?page=3&per_page=2", { key })
    expect(beyond.body).toEqual({ data: [], meta: { total: 3, page: 3, per_page: 2, total_pages: 2 } })
  })

  it("answers 400 in the envelope for a bad page, page size or parameter", async () => {
    const { key } = await server.seedOrganization()
    expectInvalid(await call(server, "GET", "/v1/webhooks?page=0", { key }), ["page"])
    expectInvalid(await call(server, "GET", "/v1/webhooks?per_page=101", { key }), ["per_page"])
    expectInvalid(await call(server, "GET", "/v1/webhooks?limit=10", { key }), ["limit"])
  })
})

describe("DELETE /v1/webhooks/:id", () => {
  it("answers 204 and the endpoint is gone; a second delete is 404 in the envelope", async () => {
    const { key } = await server.seedOrganization()
    const webhook = await createWebhook(key)
    const deleted = await call(server, "DELETE", `/v1/webhooks/${webhook.id}`, { key })
    expect(deleted.status).toBe(204)
    expect(deleted.text).toBe("")
    expect((await call(server, "GET", "/v1/webhooks", { key })).body.meta.total).toBe(0)
    expectError(await call(server, "DELETE", `/v1/webhooks/${webhook.id}`, { key }), "not_found")
  })

  it("answers 404 for an id of nothing, 403 for another organization's endpoint and 400 for an id that is not a UUID", async () => {
    const { key } = await server.seedOrganization()
    expectError(await call(server, "DELETE", `/v1/webhooks/${nothing}`, { key }), "not_found")
    const theirs = await createWebhook((await server.seedOrganization()).key, { description: "their sync" })
    const refused = await call(server, "DELETE", `/v1/webhooks/${theirs.id}`, { key })
    expectError(refused, "forbidden")
    expect(refused.text).not.toContain("their sync")
    expectInvalid(await call(server, "DELETE", "/v1/webhooks/nope", { key }), ["id"])
  })

  it("answers 405 in the envelope to other methods on an endpoint's path", async () => {
    const { key } = await server.seedOrganization()
    const webhook = await createWebhook(key)
    const answer = await call(server, "GET", `/v1/webhooks/${webhook.id}`, { key })
    expectError(answer, "method_not_allowed")
    expect(answer.headers.get("allow")).toBe("DELETE")
  })
})

describe("/api/v1/webhooks", () => {
  it("serves the same routes under /api/v1", async () => {
    const { key } = await server.seedOrganization()
    const webhook = await createWebhook(key, {}, "/api/v1")
    const listed = await call(server, "GET", "/api/v1/webhooks", { key })
    expect(listed.body.data.map((w: { id: string }) => w.id)).toEqual([webhook.id])
    expect((await call(server, "GET", "/v1/webhooks", { key })).body).toEqual(listed.body)
    expect((await call(server, "DELETE", `/api/v1/webhooks/${webhook.id}`, { key })).status).toBe(204)
    expectError(await call(server, "DELETE", `/api/v1/webhooks/${webhook.id}`, { key }), "not_found")
    expectInvalid(await call(server, "POST", "/api/v1/webhooks", { key, json: { url: "http://[::ffff:127.0.0.1]/" } }), ["url"])
  })
})

describe("the OpenAPI document of the overview form", () => {
  it("lists the webhook routes under /v1 with the envelopes", async () => {
    const answer = await call(server, "GET", "/openapi.json")
    expect(answer.status).toBe(200)
    const paths = answer.body.paths
    expect(Object.keys(paths["/v1/webhooks"]).sort()).toEqual(["get", "post"])
    expect(Object.keys(paths["/v1/webhooks/{id}"])).toEqual(["delete"])
    for (const [method, route] of [["get", "/v1/webhooks"], ["post", "/v1/webhooks"], ["delete", "/v1/webhooks/{id}"]] as const) {
      expect(paths[route][method].summary).toEqual(expect.any(String))
      expect(paths[route][method].description).toEqual(expect.any(String))
    }
    expect(paths["/v1/webhooks"].post.responses["201"]).toBeDefined()
    expect(paths["/v1/webhooks/{id}"].delete.responses["204"]).toBeDefined()
    expect(paths["/v1/webhooks"].post.responses["400"].content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/ValidationError"
    })
    const schemas = answer.body.components.schemas
    expect(schemas.WebhookEndpointList.properties).toHaveProperty("meta")
    expect(schemas.WebhookEndpointWithSecretData.properties).toHaveProperty("data")
    expect(answer.text).not.toContain("application/problem+json")
  })
})
