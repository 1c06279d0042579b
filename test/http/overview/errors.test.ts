/**
 * What the overview form answers when it does not answer a resource: every error in the
 * `{error: {code, message, details}}` envelope (401, 403, 404, 405, 409, 400 with every bad field,
 * 429), the rate-limit headers, `Idempotency-Key` replays, and the OpenAPI document of the form.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startHttpServer, type TestHttpServer } from "../../support/http-server.js"
import { createSubscriber, expectError, expectInvalid, freshEmail } from "./helpers.js"
import { sendChunked } from "../helpers.js"

let server: TestHttpServer
beforeAll(async () => {
  server = await startHttpServer({ form: "overview" })
})
afterAll(() => server.close())

const missingId = "01a1fcfc-0000-7000-8000-000000000000"

describe("errors in the envelope", () => {
  it("401 unauthorized without a credential, and with an unknown key", async () => {
    const none = await call(server, "GET", "/v1/subscribers")
    expectError(none, "unauthorized")
    expect(none.headers.get("www-authenticate")).toContain("X-API-Key")
    expectError(await call(server, "GET", "/api/v1/tags", { key: "svc_test_nothing" }), "unauthorized")
  })

  it("403 forbidden for a key without the scope", async () => {
    const { key } = await server.seedOrganization({ scopes: ["subscribers:read"] })
    expectError(await call(server, "POST", "/v1/subscribers", { key, json: { email: freshEmail() } }), "forbidden")
    expectError(await call(server, "GET", "/v1/tags", { key }), "forbidden")
  })

  it("every error code is documented at /errors/{code}, as this form runs; an unknown code is a 404 envelope", async () => {
    const json = await call(server, "GET", "/errors/validation_error", { headers: { accept: "application/json" } })
    expect(json.status).toBe(200)
    expect(json.body).toMatchObject({ code: "validation_error", status: 400 })
    const page = await fetch(`${server.baseUrl}/errors/rate_limited`)
    expect(page.status).toBe(200)
    expect(page.headers.get("content-type")).toContain("text/html")
    expectError(await call(server, "GET", "/errors/no_such_code"), "not_found")
  })

  it("404 not_found for a missing resource and for a path that does not exist", async () => {
    const { key } = await server.seedOrganization()
    expectError(await call(server, "GET", `/v1/subscribers/${missingId}`, { key }), "not_found")
    expectError(await call(server, "DELETE", `/v1/tags/${missingId}`, { key }), "not_found")
    expectError(await call(server, "GET", "/v1/nothing-here", { key }), "not_found")
  })

  it("405 method_not_allowed with Allow for a method the path does not take", async () => {
    const { key } = await server.seedOrganization()
    const answer = await call(server, "PUT", `/v1/subscribers/${missingId}`, { key, json: {} })
    expectError(answer, "method_not_allowed")
    expect(answer.headers.get("allow")).toBe("DELETE, GET, PATCH")
  })

  it("409 conflict for an email the organization has, and invalid_status_transition for a move the API may not make", async () => {
    const { key } = await server.seedOrganization()
    const subscriber = await createSubscriber(server, key)
    expectError(await call(server, "POST", "/v1/subscribers", { key, json: { email: subscriber.email } }), "conflict")
    expectError(
      await call(server, "PATCH", `/v1/subscribers/${subscriber.id}`, { key, json: { status: "bounced" } }),
      "invalid_status_transition"
    )
  })

  it("400 validation_error lists every bad field of a body in details", async () => {
    const { key } = await server.seedOrganization()
    const answer = await call(server, "POST", "/v1/subscribers", {
      key,
      json: { email: "not an address", first_name: 7, tags: ["ok", ""], metadata: [], unknown_field: true }
    })
    expectInvalid(answer, ["email", "first_name", "tags[1]", "metadata", "unknown_field"])
    const tag = await call(server, "POST", "/v1/tags", { key, json: { name: "", category: "", slug: "Not A Slug" } })
    expectInvalid(tag, ["name", "category", "slug"])
  })

  it("400 validation_error lists every bad query parameter, and a sort field the list does not have", async () => {
    const { key } = await server.seedOrganization()
    const answer = await call(server, "GET", "/v1/subscribers?page=0&per_page=101&status=gone&sort=-", { key })
    expectInvalid(answer, ["page", "per_page", "status", "sort"])
    expectInvalid(await call(server, "GET", "/v1/subscribers?sort=-created_at,shoe_size", { key }), ["sort"])
    expectInvalid(await call(server, "GET", "/v1/tags?per_page=abc", { key }), ["per_page"])
  })

  it("400 validation_error for a body that is not JSON, and for an id that is not a UUID", async () => {
    const { key } = await server.seedOrganization()
    const broken = await call(server, "POST", "/v1/tags", {
      key,
      body: "{not json",
      headers: { "content-type": "application/json" }
    })
    expectInvalid(broken, ["body"])
    expectInvalid(await call(server, "GET", "/v1/subscribers/123", { key }), ["id"])
  })
})

describe("errors of the framework in the envelope", () => {
  it("413 payload_too_large in the error envelope for a 2 MiB body sent in chunks, the connection kept", async () => {
    const { key } = await server.seedOrganization()
    const sent = await sendChunked(Number(new URL(server.baseUrl).port), "/v1/subscribers", key, 2 * 1024 * 1024, "/v1/subscribers")
    expect(sent.status).toBe(413)
    expect(JSON.parse(sent.body)).toMatchObject({ error: { code: "payload_too_large" } })
    expect(sent.next).toBe(200)
  })

  it("413 payload_too_large, 415 unsupported_media_type, and a path under /api/v1 that does not exist", async () => {
    const { key } = await server.seedOrganization()
    const big = JSON.stringify({ email: freshEmail(), metadata: { blob: "x".repeat(1024 * 1024) } })
    expectError(await call(server, "POST", "/v1/subscribers", { key, body: big, headers: { "content-type": "application/json" } }), "payload_too_large")
    expectError(
      await call(server, "POST", "/api/v1/tags", { key, body: "name=a", headers: { "content-type": "application/x-www-form-urlencoded" } }),
      "unsupported_media_type"
    )
    expectError(await call(server, "GET", "/api/v1/nothing-here", { key }), "not_found")
  })
})

describe("rate limits in the overview form", () => {
  it("every answer carries the rate-limit headers, and the 101st request of a free organization is 429 rate_limited", async () => {
    const { key } = await server.seedOrganization({ tier: "free" })
    const first = await call(server, "GET", "/v1/subscribers", { key })
    expect(first.headers.get("x-ratelimit-limit")).toBe("100")
    expect(first.headers.get("x-ratelimit-remaining")).toBe("99")
    expect(Number(first.headers.get("x-ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000)
    for (let i = 2; i <= 100; i++) expect((await call(server, "GET", "/api/v1/tags", { key })).status).toBe(200)
    const refused = await call(server, "POST", "/v1/subscribers", { key, json: { email: freshEmail() } })
    expectError(refused, "rate_limited")
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("0")
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0)
    server.advanceClock("61 seconds")
    const after = await call(server, "GET", "/v1/subscribers", { key })
    expect(after.status).toBe(200)
    expect(after.body.meta.total).toBe(0)
  })
})

describe("Idempotency-Key on POST in the overview form", () => {
  it("a repeat answers the first answer again with Idempotent-Replayed: true, and creates once", async () => {
    const { key } = await server.seedOrganization()
    const json = { email: freshEmail(), tags: ["imported"] }
    const headers = { "idempotency-key": `overview-${Date.now()}` }
    const first = await call(server, "POST", "/v1/subscribers", { key, json, headers })
    expect(first.status, first.text).toBe(201)
    expect(first.headers.get("idempotent-replayed")).toBeNull()
    const replay = await call(server, "POST", "/v1/subscribers", { key, json, headers })
    expect(replay.status).toBe(201)
    expect(replay.text).toBe(first.text)
    expect(replay.headers.get("idempotent-replayed")).toBe("true")
    const list = await call(server, "GET", "/v1/subscribers", { key })
    expect(list.body.meta.total).toBe(1)

    const reused = await call(server, "POST", "/v1/subscribers", { key, json: { email: freshEmail() }, headers })
    expectError(reused, "idempotency_key_reused")
  })

  it("a refusal of the endpoint is kept and replayed in the error envelope", async () => {
    const { key } = await server.seedOrganization()
    const subscriber = await createSubscriber(server, key)
    const headers = { "idempotency-key": `overview-conflict-${Date.now()}` }
    const json = { email: subscriber.email }
    const first = await call(server, "POST", "/v1/subscribers", { key, json, headers })
    expectError(first, "conflict")
    const replay = await call(server, "POST", "/v1/subscribers", { key, json, headers })
    expectError(replay, "conflict")
    expect(replay.text).toBe(first.text)
    expect(replay.headers.get("idempotent-replayed")).toBe("true")
  })
})

describe("the description of the overview form", () => {
  it("/openapi.json describes /v1 with envelopes and the error body; /docs and /redoc render it", async () => {
    const answer = await call(server, "GET", "/openapi.json")
    expect(answer.status).toBe(200)
    const paths = Object.keys(answer.body.paths)
    expect(paths).toEqual(expect.arrayContaining(["/v1/subscribers", "/v1/subscribers/{id}", "/v1/subscribers/{id}/tags", "/v1/tags", "/v1/tags/{id}"]))
    expect(paths.some((path) => path.startsWith("/api/v1"))).toBe(false)
    expect(Object.keys(answer.body.paths["/v1/subscribers/{id}/tags"]).sort()).toEqual(["get", "patch"])
    const schemas = answer.body.components.schemas
    expect(schemas.SubscriberList.properties).toHaveProperty("meta")
    expect(schemas.ValidationError.properties).toHaveProperty("error")
    expect(schemas).not.toHaveProperty("HttpApiDecodeError")
    // The routes shared with the reference form are described with this form's errors too.
    expect(paths).toContain("/auth/verify")
    expect(Object.keys(schemas).filter((name) => name.endsWith("Problem"))).toEqual([])
    expect(answer.text).not.toContain("application/problem+json")
    expect(answer.body.paths["/auth/verify"].get.responses["401"].content["application/json"].schema).toBeDefined()
    const refs = [...answer.text.matchAll(/"#\/components\/schemas\/(\w+)"/g)].map((m) => m[1]!)
    expect(refs.length).toBeGreaterThan(0)
    for (const name of new Set(refs)) expect(schemas, name).toHaveProperty(name)
    const badRequest = answer.body.paths["/v1/subscribers"].post.responses["400"]
    expect(badRequest.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/ValidationError" })

    const docs = await call(server, "GET", "/docs")
    expect(docs.status).toBe(200)
    expect(docs.headers.get("content-type")).toMatch(/^text\/html/)
    const redoc = await call(server, "GET", "/redoc")
    expect(redoc.status).toBe(200)
    expect(redoc.text).toContain("/openapi.json")
  })

  it("the probes answer as in every form", async () => {
    const health = await call(server, "GET", "/health")
    expect(health.status).toBe(200)
    expect(health.body.status).toBe("healthy")
  })
})
