/**
 * Actions in the overview form declare their bodies, as in the reference form: no body and `{}`
 * are alike, and an unknown field is a 400 in the error envelope naming it, before anything happens.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../../support/http-server.js"
import { createSubscriber, createTag, expectError, expectInvalid } from "./helpers.js"

let server: TestHttpServer
beforeAll(async () => {
  server = await startHttpServer({ form: "overview", adapters: UnlimitedRateLimiterLive })
})
afterAll(() => server.close())

describe("actions that take no fields", () => {
  it("a key rotation with a field rotates nothing; with no body or {} it rotates", async () => {
    const { key: owner } = await server.seedOrganization()
    const made = (await call(server, "POST", "/v1/api-keys", { key: owner, json: { name: "CI", scopes: ["tags:read"] } })).body.data
    const target = `/v1/api-keys/${made.id}/rotate`
    expectInvalid(await call(server, "POST", target, { key: owner, json: { expires_in_hours: 24 } }), ["expires_in_hours"])
    expect((await call(server, "GET", "/v1/tags", { key: made.key })).status).toBe(200)
    expect((await call(server, "POST", target, { key: owner, json: {} })).status).toBe(200)
    expectError(await call(server, "GET", "/v1/tags", { key: made.key }), "unauthorized")
    expect((await call(server, "POST", target, { key: owner })).status).toBe(200)
  })

  it("a DELETE with a field deletes nothing; with no body or {} it deletes", async () => {
    const { key } = await server.seedOrganization()
    const reader = await createSubscriber(server, key)
    const tag = await createTag(server, key)
    expectInvalid(await call(server, "DELETE", `/v1/subscribers/${reader.id}`, { key, json: { hard: true } }), ["hard"])
    expectInvalid(await call(server, "DELETE", `/v1/tags/${tag.id}`, { key, json: { force: true } }), ["force"])
    expect((await call(server, "GET", `/v1/subscribers/${reader.id}`, { key })).status).toBe(200)
    expect((await call(server, "GET", `/v1/tags/${tag.id}`, { key })).status).toBe(200)
    expect((await call(server, "DELETE", `/v1/subscribers/${reader.id}`, { key })).status).toBe(204)
    expect((await call(server, "DELETE", `/v1/tags/${tag.id}`, { key, json: {} })).status).toBe(204)
  })

  it("sign-out and the preference center refuse a field in the error envelope and change nothing", async () => {
    const user = await server.signIn()
    expectInvalid(await call(server, "POST", "/auth/logout", { headers: user.headers(), json: { everywhere: true } }), ["everywhere"])
    expect((await call(server, "GET", "/auth/organizations", { headers: user.headers() })).status).toBe(200)

    const { key } = await server.seedOrganization()
    const tag = await createTag(server, key)
    const reader = await createSubscriber(server, key)
    const link = await call(server, "POST", `/v1/subscribers/${reader.id}/token`, { key })
    expect(link.status, link.text).toBe(200)
    const query = `?token=${encodeURIComponent(link.body.data.token)}`
    expectInvalid(await call(server, "PUT", `/preference-center/tags/${tag.id}${query}`, { json: { weekly: true } }), ["weekly"])
    expect((await call(server, "GET", `/preference-center${query}`)).body.data.subscribed_tags).toEqual([])
    const subscribed = await call(server, "PUT", `/preference-center/tags/${tag.id}${query}`)
    expect(subscribed.status, subscribed.text).toBe(200)
    expect(subscribed.body.data.subscribed_tags).toHaveLength(1)
  })

  it("the OpenAPI document gives the actions a body they may leave out", async () => {
    const spec = (await call(server, "GET", "/openapi.json")).body
    expect(spec.components.schemas.NoFields).toMatchObject({ type: "object", properties: {}, additionalProperties: false })
    for (const [path, method] of [["/v1/campaigns/{id}/send", "post"], ["/v1/api-keys/{id}/rotate", "post"], ["/v1/tags/{id}", "delete"]]) {
      expect(spec.paths[path!][method!].requestBody, `${method} ${path}`).toMatchObject({ required: false })
    }
    expect(spec.components.schemas.SendEmailRequest.properties.kind.default).toBe("marketing")
    expect(spec.components.schemas.CreateCampaignRequest.properties.kind.default).toBe("marketing")
  })
})
