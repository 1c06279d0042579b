/** Templates in the overview form: /v1/templates with PATCH, the `data` envelope and numbered pages. */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MAX_RENDER_WORK } from "../../../adapters/liquid/index.js"
import { call, startHttpServer, type TestHttpServer } from "../../support/http-server.js"
import { besideHealth, runawayTemplate } from "../../support/runaway-template.js"
import { createSubscriber, expectError, expectInvalid, uuidPattern } from "./helpers.js"

let server: TestHttpServer
beforeAll(async () => {
  server = await startHttpServer({ form: "overview" })
})
afterAll(() => server.close())

const nothing = "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"

describe("/v1/templates", () => {
  it("creates, pages, changes, previews and deletes templates in the envelope", async () => {
    const { key } = await server.seedOrganization()
    const created = await call(server, "POST", "/v1/templates", {
      key,
      json: { name: "Hello", subject: "Hi {{ subscriber.first_name }}", text: "Hello {{ subscriber.first_name }}" }
    })
    expect(created.status, created.text).toBe(201)
    expect(created.body.data).toMatchObject({ id: expect.stringMatching(uuidPattern), name: "Hello", html: null })
    const id = created.body.data.id
    await call(server, "POST", "/api/v1/templates", { key, json: { name: "Two", subject: "s", html: "<p>2</p>" } })

    const page = await call(server, "GET", "/v1/templates?per_page=1&page=2", { key })
    expect(page.body.meta).toEqual({ total: 2, page: 2, per_page: 1, total_pages: 2 })
    expect(page.body.data[0].name).toBe("Two")

    const patched = await call(server, "PATCH", `/v1/templates/${id}`, { key, json: { html: "<b>{{ subscriber.first_name }}</b>" } })
    expect(patched.status, patched.text).toBe(200)
    expect(patched.body.data.html).toBe("<b>{{ subscriber.first_name }}</b>")

    const reader = await createSubscriber(server, key, { first_name: "Ada" })
    const preview = await call(server, "POST", `/v1/templates/${id}/preview`, { key, json: { subscriber_id: reader.id } })
    expect(preview.body.data).toEqual({ subject: "Hi Ada", html: "<b>Ada</b>", text: "Hello Ada", empty_variables: [] })

    expect((await call(server, "DELETE", `/v1/templates/${id}`, { key })).status).toBe(204)
    expectError(await call(server, "GET", `/v1/templates/${id}`, { key }), "not_found")
  })

  it("answers its errors in the error envelope", async () => {
    const { key } = await server.seedOrganization()
    expectInvalid(await call(server, "POST", "/v1/templates", { key, json: { name: "x", subject: "s", html: "{% include 'a' %}" } }), ["html"])
    expectInvalid(await call(server, "POST", "/v1/templates", { key, json: { name: "x", subject: "s", text: "t", extra: 1 } }), ["extra"])
    expectError(await call(server, "POST", `/v1/templates/${nothing}/preview`, { key, json: {} }), "not_found")
    const other = await server.seedOrganization()
    const theirs = await call(server, "POST", "/v1/templates", { key: other.key, json: { name: "x", subject: "s", text: "t" } })
    expectError(await call(server, "PATCH", `/v1/templates/${theirs.body.data.id}`, { key, json: { name: "y" } }), "forbidden")
  })

  it("eight previews at once of a template whose filter would work for seconds each answer 400 naming the work limit, and /health answers beside them", async () => {
    const { key } = await server.seedOrganization()
    const made = await call(server, "POST", "/v1/templates", { key, json: { name: "runaway", subject: "s", html: runawayTemplate } })
    expect(made.status, made.text).toBe(201)
    const preview = `/v1/templates/${made.body.data.id}/preview`
    const { answers } = await besideHealth(server, Array.from({ length: 8 }, () => () => call(server, "POST", preview, { key, json: {} })))
    for (const answer of answers) {
      expectInvalid(answer, ["html"])
      expect(answer.body.error.details[0].message).toContain(`makes more than ${MAX_RENDER_WORK} elements and characters`)
    }
  })

  it("a single send whose content's filter would work for seconds is refused with a 400 naming the limit", async () => {
    const { key } = await server.seedOrganization({ environment: "live" })
    const reader = await createSubscriber(server, key)
    const refused = await call(server, "POST", "/v1/emails/send", {
      key,
      json: { to: reader.email, kind: "marketing", subject: "s", text: runawayTemplate }
    })
    expectInvalid(refused, ["text"])
    expect(refused.body.error.details[0].message).toContain(`makes more than ${MAX_RENDER_WORK}`)
  })
})
