/**
 * The `/auth` routes and sessions in the overview form: the routes are those of every form, their
 * errors come in this form's `error` envelope, and a session acts on `/v1` for the organization
 * named in `X-Organization-Id`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../../support/http-server.js"
import { expectError, expectInvalid, freshEmail } from "./helpers.js"

let server: TestHttpServer
beforeAll(async () => {
  server = await startHttpServer({ form: "overview", adapters: UnlimitedRateLimiterLive })
})
afterAll(() => server.close())

describe("the /auth routes in the overview form", () => {
  it("sign in with a magic link, make an organization, and act for it on /v1 with the session", async () => {
    const user = await server.signIn()
    const organization = await server.createOrganizationAs(user)
    const listed = await call(server, "GET", "/auth/organizations", { headers: user.headers() })
    expect(listed.status).toBe(200)
    expect(listed.body).toEqual([{ id: organization.id, name: organization.name, slug: organization.slug, role: "owner" }])

    const created = await call(server, "POST", "/v1/subscribers", {
      headers: { ...user.headers(organization.id), origin: server.baseUrl, "sec-fetch-site": "same-origin" },
      json: { email: freshEmail() }
    })
    expect(created.status, created.text).toBe(201)
    const list = await call(server, "GET", "/api/v1/subscribers", { headers: user.headers(organization.id) })
    expect(list.status).toBe(200)
    expect(list.body.meta.total).toBe(1)
  })

  it("answers its errors in the envelope: an unknown token, a bad body, no session", async () => {
    expectError(await call(server, "GET", "/auth/verify?token=nothing"), "invalid_token")
    expectInvalid(await call(server, "POST", "/auth/magic-link", { json: { email: "nope" } }), ["email"])
    const noSession = await call(server, "GET", "/auth/organizations")
    expectError(noSession, "unauthorized")
    expect(noSession.headers.get("www-authenticate")).toContain("svc_session")
    const sent = await call(server, "POST", "/auth/magic-link", { json: { email: freshEmail() } })
    expect(sent.status).toBe(200)
    expect(typeof sent.body.message).toBe("string")
  })

  it("a session on /v1 needs X-Organization-Id (400) of an organization the user is a member of (403)", async () => {
    const user = await server.signIn()
    await server.createOrganizationAs(user)
    const { organization: other } = await server.seedOrganization()
    expectInvalid(await call(server, "GET", "/v1/subscribers", { headers: user.headers() }), ["X-Organization-Id"])
    expectError(await call(server, "GET", "/v1/subscribers", { headers: user.headers(other.id) }), "forbidden")
  })
})
