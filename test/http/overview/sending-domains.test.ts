/**
 * Custom sending domains in the overview form: POST, GET and DELETE /v1/settings/email/domain in
 * the `data` envelope, and the sending address set with PATCH /v1/settings/email.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { randomUUID } from "node:crypto"
import { call, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../../support/http-server.js"
import { type ResendApi, startResendApi } from "../../support/resend-api.js"
import { createSubscriber, expectError, expectInvalid } from "./helpers.js"

let resend: ResendApi
let server: TestHttpServer
beforeAll(async () => {
  resend = await startResendApi()
  server = await startHttpServer({
    form: "overview",
    adapters: UnlimitedRateLimiterLive,
    config: { RESEND_API_KEY: resend.apiKey, RESEND_BASE_URL: resend.url, EMAIL_FROM: "Mailer <mail@mailer.roster.example>" }
  })
})
afterAll(() => Promise.all([server.close(), resend.close()]).then(() => undefined))

const path = "/v1/settings/email/domain"
const freshDomain = () => `news-${randomUUID().slice(0, 8)}.acme.example`

describe("/v1/settings/email/domain", () => {
  it("adds a domain (201, pending, its DNS records), checks it until verified, sends from it, removes it", async () => {
    const { key } = await server.seedOrganization({ tier: "enterprise", environment: "live" })
    const domain = freshDomain()
    const added = await call(server, "POST", path, { key, json: { domain } })
    expect(added.status, added.text).toBe(201)
    expect(Object.keys(added.body)).toEqual(["data"])
    expect(added.body.data).toMatchObject({ domain, status: "pending" })
    expect(added.body.data.dns_records.map((r: { record: string; type: string; name: string }) => `${r.record} ${r.type} ${r.name}`))
      .toEqual(["SPF MX send", "SPF TXT send", "DKIM TXT resend._domainkey"])
    expect(added.body.data.dns_records[0]).toMatchObject({ ttl: "Auto", priority: 10, status: "not_started" })

    expect((await call(server, "GET", "/api/v1/settings/email/domain", { key })).body.data.status).toBe("pending")
    expectInvalid(await call(server, "PATCH", "/v1/settings/email", { key, json: { from_address: `news@${domain}` } }), ["from_address"])

    resend.setDomainStatus(domain, "verified")
    const verified = await call(server, "GET", path, { key })
    expect(verified.body.data).toMatchObject({ domain, status: "verified" })
    const set = await call(server, "PATCH", "/v1/settings/email", { key, json: { from_address: `news@${domain}` } })
    expect(set.status, set.text).toBe(200)
    expect(set.body.data).toMatchObject({ is_custom_domain: true, custom_domain: domain, custom_domain_status: "verified" })
    const reader = await createSubscriber(server, key)
    const sent = await call(server, "POST", "/v1/emails/send", {
      key,
      json: { to: reader.email, kind: "transactional", subject: "Hi", text: "Hello" }
    })
    expect(sent.status, sent.text).toBe(202)
    expect(sent.body.data.from).toContain(`<news@${domain}>`)

    const removed = await call(server, "DELETE", path, { key })
    expect(removed.status, removed.text).toBe(204)
    expect(resend.domains().some((d) => d.name === domain)).toBe(false)
    expectError(await call(server, "GET", path, { key }), "not_found")
    expect((await call(server, "GET", "/v1/settings/email", { key })).body.data).toMatchObject({ from_address: null, custom_domain: null })
  })

  it("answers its refusals and the provider's outage in the error envelope", async () => {
    const free = await server.seedOrganization()
    const plan = await call(server, "POST", path, { key: free.key, json: { domain: freshDomain() } })
    expectError(plan, "limit_exceeded")
    expect(plan.body.error.message).toContain("enterprise")

    const { key } = await server.seedOrganization({ tier: "enterprise" })
    expectInvalid(await call(server, "POST", path, { key, json: { domain: "not a domain" } }), ["domain"])
    expectInvalid(await call(server, "POST", path, { key, json: { domain: "mailer.roster.example" } }), ["domain"])

    resend.script({ status: 500, name: "internal_server_error", message: "Something went wrong" })
    const domain = freshDomain()
    expectError(await call(server, "POST", path, { key, json: { domain } }), "service_unavailable")
    expectError(await call(server, "GET", path, { key }), "not_found")

    expect((await call(server, "POST", path, { key, json: { domain } })).status).toBe(201)
    const other = await server.seedOrganization({ tier: "enterprise" })
    expectError(await call(server, "POST", path, { key: other.key, json: { domain } }), "conflict")
    const narrow = await server.createApiKey(other.organization, ["emails:send"])
    expectError(await call(server, "DELETE", path, { key: narrow }), "forbidden")
  })
})
