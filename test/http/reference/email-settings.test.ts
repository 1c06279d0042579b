/**
 * /api/v1/settings/email: the sender settings, owner only. `from_name` makes the From header of
 * every email; a sending address of the organization's own waits for custom domains.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../../support/http-server.js"
import { createSubscriber, expectInvalid, expectProblem } from "../helpers.js"

let server: TestHttpServer
let branded: TestHttpServer
beforeAll(async () => {
  server = await startHttpServer({ adapters: UnlimitedRateLimiterLive })
  branded = await startHttpServer({ adapters: UnlimitedRateLimiterLive, config: { EMAIL_FROM: "Mailer <mail@news.example>" } })
})
afterAll(() => Promise.all([server.close(), branded.close()]))

const path = "/api/v1/settings/email"

describe("GET and PUT /api/v1/settings/email", () => {
  it("starts from the organization's name and the service's address", async () => {
    const { key, organization } = await server.seedOrganization()
    const answer = await call(server, "GET", path, { key })
    expect(answer.status, answer.text).toBe(200)
    expect(answer.body).toEqual({
      from_name: null,
      from_address: null,
      effective_from: `"${organization.name}" <noreply@localhost>`,
      is_custom_domain: false,
      custom_domain: null,
      custom_domain_status: null,
      can_add_custom_domain: false
    })
    const top = await server.seedOrganization({ tier: "enterprise" })
    expect((await call(server, "GET", path, { key: top.key })).body.can_add_custom_domain).toBe(true)
  })

  it("sets the display name of every From header, quoted safely, and null goes back to the organization's name", async () => {
    const { key, organization } = await branded.seedOrganization({ environment: "live" })
    const set = await call(branded, "PUT", path, { key, json: { from_name: '  Ada "The Editor", Weekly <news>  ' } })
    expect(set.status, set.text).toBe(200)
    expect(set.body.from_name).toBe('Ada "The Editor", Weekly <news>')
    expect(set.body.effective_from).toBe('"Ada \\"The Editor\\", Weekly <news>" <mail@news.example>')
    expect((await call(branded, "GET", path, { key })).body.from_name).toBe('Ada "The Editor", Weekly <news>')

    // The next email carries it.
    const reader = await createSubscriber(branded, key)
    const sent = await call(branded, "POST", "/api/v1/emails/send", {
      key,
      json: { to: reader.email, kind: "transactional", subject: "Hi", text: "Hello" }
    })
    expect(sent.body.from).toBe(set.body.effective_from)

    const unchanged = await call(branded, "PUT", path, { key, json: {} })
    expect(unchanged.body.from_name).toBe('Ada "The Editor", Weekly <news>')
    const reset = await call(branded, "PUT", path, { key, json: { from_name: null } })
    expect(reset.body).toMatchObject({ from_name: null, effective_from: `"${organization.name}" <mail@news.example>` })
  })

  it("refuses names that could break a header, an address without a custom domain, and unknown fields", async () => {
    const { key } = await server.seedOrganization()
    for (const from_name of ["Evil\r\nBcc: victim@example.com", "", "   ", "x".repeat(101), 42]) {
      expectInvalid(await call(server, "PUT", path, { key, json: { from_name } }), path, ["from_name"])
    }
    const address = await call(server, "PUT", path, { key, json: { from_address: "news@acme.example" } })
    expectInvalid(address, path, ["from_address"])
    expect(address.body.detail).toContain("custom domain")
    expect((await call(server, "PUT", path, { key, json: { from_address: null } })).status).toBe(200)
    expectInvalid(await call(server, "PUT", path, { key, json: { reply_to: "x@example.com" } }), path, ["reply_to"])
    expect((await call(server, "GET", path, { key })).body.from_name).toBeNull()
  })

  it("is for owners: a member and a key without * are refused", async () => {
    const { key, organization } = await server.seedOrganization()
    const member = await server.signIn()
    await server.addMember(organization.id, member, "member")
    expectProblem(await call(server, "GET", path, { headers: member.headers(organization.id) }), "forbidden", path)
    const narrow = await server.createApiKey(organization, ["emails:send", "templates:write"])
    expectProblem(await call(server, "PUT", path, { key: narrow, json: { from_name: "X" } }), "forbidden", path)
    expectProblem(await call(server, "GET", path), "unauthorized", path)
    expect((await call(server, "GET", path, { key })).status).toBe(200)
  })
})
