/** Sender settings in the overview form: GET and PATCH /v1/settings/email in the `data` envelope. */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startHttpServer, type TestHttpServer } from "../../support/http-server.js"
import { expectError, expectInvalid } from "./helpers.js"

let server: TestHttpServer
beforeAll(async () => {
  server = await startHttpServer({ form: "overview" })
})
afterAll(() => server.close())

describe("GET and PATCH /v1/settings/email", () => {
  it("answers and changes the settings in `data`, under /v1 and /api/v1", async () => {
    const { key, organization } = await server.seedOrganization()
    const got = await call(server, "GET", "/v1/settings/email", { key })
    expect(got.status, got.text).toBe(200)
    expect(got.body.data).toMatchObject({ from_name: null, effective_from: `"${organization.name}" <noreply@localhost>` })
    const set = await call(server, "PATCH", "/api/v1/settings/email", { key, json: { from_name: "Acme Weekly" } })
    expect(set.status, set.text).toBe(200)
    expect(set.body.data.effective_from).toBe('"Acme Weekly" <noreply@localhost>')
  })

  it("answers its errors in the error envelope", async () => {
    const { key, organization } = await server.seedOrganization()
    expectInvalid(await call(server, "PATCH", "/v1/settings/email", { key, json: { from_name: "a\nb" } }), ["from_name"])
    expectInvalid(await call(server, "PATCH", "/v1/settings/email", { key, json: { from_address: "a@b.example" } }), ["from_address"])
    const narrow = await server.createApiKey(organization, ["emails:send"])
    expectError(await call(server, "GET", "/v1/settings/email", { key: narrow }), "forbidden")
  })
})
