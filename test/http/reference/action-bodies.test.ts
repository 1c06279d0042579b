/**
 * Actions declare their bodies, even an empty one: no body, an empty one and `{}` are alike, and
 * an unknown field is a 400 naming it before anything happens, so nothing irreversible runs on a
 * field the service ignored. The campaign send's `scheduled_at` is in campaigns.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../../support/http-server.js"
import { createSubscriber, createTag, expectInvalid, expectProblem } from "../helpers.js"

let server: TestHttpServer
beforeAll(async () => {
  server = await startHttpServer({ adapters: UnlimitedRateLimiterLive })
})
afterAll(() => server.close())

const MiB = 1024 * 1024
/** A public address, judged without a name to resolve; nothing is ever sent to it. */
const publicUrl = "https://93.184.215.14/hooks/roster"

/** A body sent as it is, with a content type. */
const raw = (body: string, contentType = "application/json") => ({ body, headers: { "content-type": contentType } })

describe("actions that take no fields", () => {
  it("a key rotation with a field rotates nothing; with no body, an empty one or {} it rotates", async () => {
    const { key: owner } = await server.seedOrganization()
    const made = await call(server, "POST", "/api/v1/api-keys", { key: owner, json: { name: "CI", scopes: ["tags:read"] } })
    expect(made.status, made.text).toBe(201)
    const target = `/api/v1/api-keys/${made.body.id}/rotate`

    expectInvalid(await call(server, "POST", target, { key: owner, json: { expires_in_hours: 24 } }), target, ["expires_in_hours"])
    expectInvalid(await call(server, "POST", target, { key: owner, json: [] }), target, ["body"])
    expect((await call(server, "GET", "/api/v1/tags", { key: made.body.key })).status).toBe(200)

    const rotated = await call(server, "POST", target, { key: owner, json: {} })
    expect(rotated.status, rotated.text).toBe(200)
    expectProblem(await call(server, "GET", "/api/v1/tags", { key: made.body.key }), "unauthorized", "/api/v1/tags")
    expect((await call(server, "POST", target, { key: owner })).status).toBe(200)
    expect((await call(server, "POST", target, { key: owner, ...raw("") })).status).toBe(200)
  })

  it("a DELETE with a field deletes nothing; no body, an empty one, {} and a bodiless request of any type delete", async () => {
    const { key } = await server.seedOrganization()
    const readers = [
      await createSubscriber(server, key),
      await createSubscriber(server, key),
      await createSubscriber(server, key),
      await createSubscriber(server, key)
    ]
    const at = (i: number) => `/api/v1/subscribers/${readers[i]!.id}`
    expectInvalid(await call(server, "DELETE", at(0), { key, json: { hard: true } }), at(0), ["hard"])
    expect((await call(server, "GET", at(0), { key })).status).toBe(200)

    expect((await call(server, "DELETE", at(0), { key })).status).toBe(204)
    expect((await call(server, "DELETE", at(1), { key, json: {} })).status).toBe(204)
    expect((await call(server, "DELETE", at(2), { key, ...raw("") })).status).toBe(204)
    expect((await call(server, "DELETE", at(3), { key, headers: { "content-type": "text/plain" } })).status).toBe(204)
    for (const i of [0, 1, 2, 3]) expectProblem(await call(server, "GET", at(i), { key }), "not_found", at(i))
  })

  it("a DELETE body is JSON and bounded like any other: 415 for another type, 413 past the limit, and nothing deleted", async () => {
    const { key } = await server.seedOrganization()
    const tag = await createTag(server, key)
    const at = `/api/v1/tags/${tag.id}`
    expectProblem(await call(server, "DELETE", at, { key, ...raw("cascade=true", "application/x-www-form-urlencoded") }), "unsupported_media_type", at)
    expectProblem(await call(server, "DELETE", at, { key, ...raw(JSON.stringify({ pad: "x".repeat(2 * MiB) })) }), "payload_too_large", at)
    expect((await call(server, "GET", at, { key })).status).toBe(200)
  })

  it("a preference link, a webhook's test and new secret, and the billing portal refuse a field before they act", async () => {
    const { key } = await server.seedOrganization()
    const reader = await createSubscriber(server, key)
    const token = `/api/v1/subscribers/${reader.id}/token`
    expectInvalid(await call(server, "POST", token, { key, json: { expires_in: 3600 } }), token, ["expires_in"])
    expect((await call(server, "POST", token, { key })).status).toBe(200)

    const webhook = await call(server, "POST", "/api/v1/webhooks", { key, json: { url: publicUrl } })
    expect(webhook.status, webhook.text).toBe(201)
    const regenerate = `/api/v1/webhooks/${webhook.body.id}/regenerate-secret`
    expectInvalid(await call(server, "POST", regenerate, { key, json: { grace_period_hours: 0 } }), regenerate, ["grace_period_hours"])
    const unchanged = await call(server, "GET", `/api/v1/webhooks/${webhook.body.id}`, { key })
    expect(unchanged.body.updated_at).toBe(webhook.body.updated_at)
    const test = `/api/v1/webhooks/${webhook.body.id}/test`
    expectInvalid(await call(server, "POST", test, { key, json: { event_type: "subscriber.created" } }), test, ["event_type"])
    const regenerated = await call(server, "POST", regenerate, { key })
    expect(regenerated.status, regenerated.text).toBe(200)
    expect(regenerated.body.signing_secret).not.toBe(webhook.body.signing_secret)

    const portal = "/api/v1/billing/customer-portal"
    expectInvalid(await call(server, "POST", portal, { key, json: { return_url: "https://example.com" } }), portal, ["return_url"])
  })

  it("sign-out with a field signs nothing out; without a body it does", async () => {
    const user = await server.signIn()
    const path = "/auth/logout"
    expectInvalid(await call(server, "POST", path, { headers: user.headers(), json: { everywhere: true } }), path, ["everywhere"])
    expect((await call(server, "GET", "/auth/organizations", { headers: user.headers() })).status).toBe(200)
    expect((await call(server, "POST", path, { headers: user.headers() })).status).toBe(200)
    expectProblem(await call(server, "GET", "/auth/organizations", { headers: user.headers() }), "unauthorized", "/auth/organizations")
  })

  it("the preference center's actions refuse a field and change nothing; without a body they act", async () => {
    const { key } = await server.seedOrganization()
    const tag = await createTag(server, key)
    const reader = await createSubscriber(server, key)
    const link = await call(server, "POST", `/api/v1/subscribers/${reader.id}/token`, { key })
    const query = `?token=${encodeURIComponent(link.body.token)}`
    const tagPath = `/preference-center/tags/${tag.id}`
    expectInvalid(await call(server, "PUT", `${tagPath}${query}`, { json: { frequency: "weekly" } }), tagPath, ["frequency"])
    expect((await call(server, "GET", `/preference-center${query}`)).body.subscribed_tags).toEqual([])
    const subscribed = await call(server, "PUT", `${tagPath}${query}`)
    expect(subscribed.status, subscribed.text).toBe(200)
    expect(subscribed.body.subscribed_tags).toHaveLength(1)

    const account = "/preference-center/account"
    expectInvalid(await call(server, "DELETE", `${account}${query}`, { json: { reason: "too many" } }), account, ["reason"])
    expect((await call(server, "GET", `/preference-center${query}`)).status).toBe(200)
    expect((await call(server, "DELETE", `${account}${query}`, { json: {} })).status).toBe(202)
  })
})

describe("the OpenAPI document", () => {
  it("gives every action a body it may leave out, which names its fields and admits no other", async () => {
    const spec = (await call(server, "GET", "/openapi.json")).body
    expect(spec.components.schemas.NoFields).toMatchObject({ type: "object", properties: {}, additionalProperties: false })
    expect(spec.components.schemas.SendCampaignRequest).toMatchObject({
      type: "object",
      properties: { scheduled_at: { type: "string", format: "date-time" } },
      additionalProperties: false
    })
    // These read their own bodies: a signed provider event, or a form a mail client or a browser posts.
    const ownBodies = ["/webhooks/resend-events", "/webhooks/payment-events", "/unsubscribe", "/preference-center"]
    const optional: Array<string> = []
    for (const [path, item] of Object.entries<Record<string, { requestBody?: { required: boolean; content: object } }>>(spec.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        // A CORS preflight (OPTIONS) is a browser's question, never sent with a body.
        if (method === "get" || method === "options" || (method === "post" && ownBodies.includes(path))) continue
        expect(operation.requestBody, `${method} ${path}`).toBeDefined()
        if (operation.requestBody!.required === false) optional.push(`${method.toUpperCase()} ${path}`)
      }
    }
    expect(optional).toEqual(expect.arrayContaining([
      "POST /api/v1/campaigns/{campaign_id}/send",
      "POST /api/v1/campaigns/{campaign_id}/cancel",
      "POST /api/v1/api-keys/{api_key_id}/rotate",
      "DELETE /api/v1/subscribers/{subscriber_id}",
      "POST /auth/logout",
      "PUT /preference-center/tags/{tag_id}"
    ]))
    expect(optional).not.toContain("POST /api/v1/campaigns")
  })

  it("says that a send and a campaign are marketing unless they say otherwise", async () => {
    const spec = (await call(server, "GET", "/openapi.json")).body
    for (const name of ["SendEmailRequest", "CreateCampaignRequest"]) {
      const schema = spec.components.schemas[name]
      expect(schema.required ?? [], name).not.toContain("kind")
      expect(schema.properties.kind, name).toMatchObject({ enum: ["transactional", "marketing"], default: "marketing" })
    }
  })
})
