/** Email triggers in the overview form: /v1/email-triggers with PATCH, the envelope and numbered pages. */
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startHttpServer, type TestHttpServer } from "../../support/http-server.js"
import { deliverDue, fireTriggers } from "../../support/worker-steps.js"
import { createSubscriber, expectError, expectInvalid } from "./helpers.js"

let server: TestHttpServer
beforeAll(async () => {
  server = await startHttpServer({ form: "overview" })
})
afterAll(() => server.close())

const work = () =>
  server.run(Effect.zipRight(fireTriggers, deliverDue()))

describe("/v1/email-triggers", () => {
  it("creates, pages, changes and deletes triggers in the envelope, and they fire", async () => {
    const { key } = await server.seedOrganization({ environment: "live" })
    const template = await call(server, "POST", "/v1/templates", { key, json: { name: "W", subject: "Welcome", text: "Hi" } })
    const created = await call(server, "POST", "/v1/email-triggers", {
      key,
      json: { name: "Welcome", event: "tag.subscribed", template_id: template.body.data.id }
    })
    expect(created.status, created.text).toBe(201)
    expect(created.body.data).toMatchObject({ event: "tag.subscribed", tag_id: null, status: "active" })
    await call(server, "POST", "/v1/email-triggers", {
      key,
      json: { name: "Second", event: "subscriber.created", template_id: template.body.data.id, status: "paused" }
    })
    const page = await call(server, "GET", "/v1/email-triggers?per_page=1&page=2", { key })
    expect(page.body.meta).toEqual({ total: 2, page: 2, per_page: 1, total_pages: 2 })
    expect(page.body.data[0].name).toBe("Second")

    const reader = await createSubscriber(server, key, { tags: ["Weekly"] })
    await work()
    expect(server.emails().filter((e) => e.includes(`To: ${reader.email}\n`))).toHaveLength(1)

    const patched = await call(server, "PATCH", `/v1/email-triggers/${created.body.data.id}`, { key, json: { delay_seconds: 60 } })
    expect(patched.body.data).toMatchObject({ delay_seconds: 60, firings: { sent: 1 } })
    expect((await call(server, "DELETE", `/v1/email-triggers/${created.body.data.id}`, { key })).status).toBe(204)
    expectError(await call(server, "GET", `/v1/email-triggers/${created.body.data.id}`, { key }), "not_found")
  })

  it("take a segment as their condition, fire only for whom it matches, and keep it from being deleted", async () => {
    const { key } = await server.seedOrganization({ environment: "live" })
    const template = await call(server, "POST", "/v1/templates", { key, json: { name: "W", subject: "Welcome", text: "Hi" } })
    const segment = await call(server, "POST", "/v1/segments", {
      key,
      json: { name: "Pro", filter: { field: "metadata.plan", op: "eq", value: "pro" } }
    })
    const base = { name: "Pro welcome", event: "subscriber.created", template_id: template.body.data.id }
    expectInvalid(await call(server, "POST", "/v1/email-triggers", {
      key,
      json: { ...base, segment_id: "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10" }
    }), ["segment_id"])
    const created = await call(server, "POST", "/v1/email-triggers", { key, json: { ...base, segment_id: segment.body.data.id } })
    expect(created.status, created.text).toBe(201)
    expect(created.body.data.segment_id).toBe(segment.body.data.id)

    const pro = await createSubscriber(server, key, { metadata: { plan: "pro" } })
    const free = await createSubscriber(server, key, { metadata: { plan: "free" } })
    await work()
    expect(server.emails().filter((e) => e.includes(`To: ${pro.email}\n`))).toHaveLength(1)
    expect(server.emails().filter((e) => e.includes(`To: ${free.email}\n`))).toHaveLength(0)
    const got = await call(server, "GET", `/v1/email-triggers/${created.body.data.id}`, { key })
    expect(got.body.data.firings).toMatchObject({ sent: 1, skipped: 1 })

    expectError(await call(server, "DELETE", `/v1/segments/${segment.body.data.id}`, { key }), "conflict")
    const patched = await call(server, "PATCH", `/v1/email-triggers/${created.body.data.id}`, { key, json: { segment_id: null } })
    expect(patched.body.data.segment_id).toBeNull()
    expect((await call(server, "DELETE", `/v1/segments/${segment.body.data.id}`, { key })).status).toBe(204)
  })

  it("answers its errors in the error envelope", async () => {
    const { key } = await server.seedOrganization()
    expectInvalid(await call(server, "POST", "/v1/email-triggers", { key, json: { name: "x", event: "subscriber.created" } }), [
      "template_id"
    ])
    expectError(
      await call(server, "POST", "/v1/email-triggers", {
        key,
        json: { name: "x", event: "subscriber.created", template_id: "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10" }
      }),
      "not_found"
    )
  })
})
