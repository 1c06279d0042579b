/**
 * /settings/organization in both wire forms: the organization's own time zone, which sequences
 * made without one take; owners only.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../support/http-server.js"
import { expectInvalid } from "./helpers.js"

const wireForms = ["reference", "overview"] as const
const servers = {} as Record<(typeof wireForms)[number], TestHttpServer>
beforeAll(async () => {
  for (const form of wireForms) servers[form] = await startHttpServer({ form, adapters: UnlimitedRateLimiterLive })
})
afterAll(() => Promise.all(wireForms.map((form) => servers[form].close())))

for (const wireForm of wireForms) {
  describe(`organization settings, ${wireForm} form`, () => {
    const api = wireForm === "reference" ? "/api/v1" : "/v1"
    const update = wireForm === "reference" ? "PUT" : "PATCH"
    const bodyOf = (answer: { readonly body: Record<string, unknown> }) =>
      (wireForm === "reference" ? answer.body : answer.body.data) as Record<string, unknown>

    it("starts on UTC, takes an IANA zone, and a sequence made without a zone takes the organization's", async () => {
      const server = servers[wireForm]
      const { key } = await server.seedOrganization()
      const path = `${api}/settings/organization`
      const first = await call(server, "GET", path, { key })
      expect(first.status, first.text).toBe(200)
      expect(bodyOf(first)).toEqual({ time_zone: "UTC" })

      const template = await call(server, "POST", `${api}/templates`, { key, json: { name: "Hi", subject: "Hi", text: "Hello" } })
      expect(template.status, template.text).toBe(201)
      const templateId = bodyOf(template).id as string
      const sequence = (json: Record<string, unknown> = {}) =>
        call(server, "POST", `${api}/sequences`, {
          key,
          json: { name: "Welcome", entry: { event: "api" }, steps: [{ send_email: { template_id: templateId } }], ...json }
        })
      const before = await sequence()
      expect(before.status, before.text).toBe(201)
      expect(bodyOf(before).time_zone).toBe("UTC")

      const changed = await call(server, update, path, { key, json: { time_zone: "Europe/Berlin" } })
      expect(changed.status, changed.text).toBe(200)
      expect(bodyOf(changed)).toEqual({ time_zone: "Europe/Berlin" })
      expect(bodyOf(await call(server, "GET", path, { key }))).toEqual({ time_zone: "Europe/Berlin" })
      // Nothing to change changes nothing.
      expect(bodyOf(await call(server, update, path, { key, json: {} }))).toEqual({ time_zone: "Europe/Berlin" })

      const after = await sequence()
      expect(bodyOf(after).time_zone).toBe("Europe/Berlin")
      expect(bodyOf(await sequence({ time_zone: "America/New_York" })).time_zone).toBe("America/New_York")
      // One made before keeps its own.
      expect(bodyOf(await call(server, "GET", `${api}/sequences/${bodyOf(before).id}`, { key })).time_zone).toBe("UTC")
    })

    it("refuses a name that is not a time zone, a field it does not take, and anyone but an owner", async () => {
      const server = servers[wireForm]
      const { key } = await server.seedOrganization()
      const path = `${api}/settings/organization`
      for (const json of [{ time_zone: "Mars/Olympus" }, { time_zone: "" }, { time_zone: 3 }]) {
        const refused = await call(server, update, path, { key, json })
        expect(refused.status, refused.text).toBe(400)
        expect(refused.text).toContain("time_zone")
        if (wireForm === "reference") expectInvalid(refused, path, ["time_zone"])
      }
      const unknown = await call(server, update, path, { key, json: { time_zone: "UTC", locale: "de" } })
      expect(unknown.status, unknown.text).toBe(400)
      expect(unknown.text).toContain("locale")
      expect(bodyOf(await call(server, "GET", path, { key }))).toEqual({ time_zone: "UTC" })

      const { key: member } = await server.seedOrganization({ scopes: ["subscribers:read", "sequences:write"] })
      expect((await call(server, "GET", path, { key: member })).status).toBe(403)
      expect((await call(server, update, path, { key: member, json: { time_zone: "Europe/Berlin" } })).status).toBe(403)
    })
  })
}
