/** Sequences in the overview form: /v1/sequences with PATCH, the envelope and numbered pages. */
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startHttpServer, type TestHttpServer } from "../../support/http-server.js"
import { deliverDue, runSequences } from "../../support/worker-steps.js"
import { createSubscriber, createTag, expectError, expectInvalid } from "./helpers.js"

let server: TestHttpServer
beforeAll(async () => {
  server = await startHttpServer({ form: "overview" })
})
afterAll(() => server.close())

const work = () => server.run(Effect.zipRight(runSequences, deliverDue()))

describe("/v1/sequences", () => {
  it("creates, pages, changes, activates and deletes sequences in the envelope; a tag enters a subscriber", async () => {
    const { key } = await server.seedOrganization({ environment: "live" })
    const template = await call(server, "POST", "/v1/templates", { key, json: { name: "W", subject: "Welcome", text: "Hi" } })
    const vip = await createTag(server, key)
    const created = await call(server, "POST", "/v1/sequences", {
      key,
      json: {
        name: "VIP welcome",
        entry: { event: "tag.subscribed", tag_id: vip.id },
        re_entry: "each_time",
        time_zone: "Europe/Berlin",
        steps: [{ send_email: { template_id: template.body.data.id } }, { wait: { until: "09:00", weekdays: ["mon"] } }, { end: true }]
      }
    })
    expect(created.status, created.text).toBe(201)
    const id = created.body.data.id as string
    expect(created.body.data).toMatchObject({
      status: "draft",
      entry: { event: "tag.subscribed", tag_id: vip.id },
      re_entry: "each_time",
      time_zone: "Europe/Berlin",
      steps: [{ name: "step_1" }, { name: "step_2", wait: { until: "09:00", weekdays: ["mon"] } }, { name: "step_3", end: true }]
    })
    await call(server, "POST", "/v1/sequences", { key, json: { name: "Second", entry: { event: "api" }, steps: [{ end: true }] } })
    const page = await call(server, "GET", "/v1/sequences?per_page=1&page=2", { key })
    expect(page.body.meta).toEqual({ total: 2, page: 2, per_page: 1, total_pages: 2 })
    expect(page.body.data[0].name).toBe("Second")

    const patched = await call(server, "PATCH", `/v1/sequences/${id}`, { key, json: { name: "VIPs" } })
    expect(patched.body.data).toMatchObject({ name: "VIPs", version: 1 })
    expect((await call(server, "POST", `/v1/sequences/${id}/activate`, { key })).body.data.status).toBe("active")

    const reader = await createSubscriber(server, key, { tags: [vip.name] })
    await work()
    expect(server.emails().filter((e) => e.includes(`To: ${reader.email}\n`))).toHaveLength(1)
    const enrollments = await call(server, "GET", `/v1/sequences/${id}/enrollments?per_page=10`, { key })
    expect(enrollments.status, enrollments.text).toBe(200)
    expect(enrollments.body.meta.total).toBe(1)
    const [enrollment] = enrollments.body.data
    expect(enrollment).toMatchObject({ subscriber_id: reader.id, state: "active", current_step: "step_2", waiting: true })
    // Monday 09:00 in Berlin: 07:00 or 08:00 UTC, by the season.
    const next = new Date(enrollment.next_run_at)
    expect(next.getUTCDay()).toBe(1)
    expect([7, 8]).toContain(next.getUTCHours())

    const figures = await call(server, "GET", `/v1/sequences/${id}/figures`, { key })
    expect(figures.body.data.steps[0]).toEqual({ step: "step_1", entered: 1, completed: 1, exited: 0, emails_sent: 1, opened: 0, clicked: 0 })
    expect(figures.body.data.steps[1]).toMatchObject({ step: "step_2", entered: 1, completed: 0 })

    const removed = await call(server, "DELETE", `/v1/sequences/${id}/enrollments/${reader.id}`, { key })
    expect(removed.body.data).toMatchObject({ state: "exited", exit_reason: "removed" })
    const enrolled = await call(server, "POST", `/v1/sequences/${id}/enrollments`, { key, json: { subscriber_id: reader.id } })
    expect(enrolled.status, enrolled.text).toBe(201)
    expect(enrolled.body.data.state).toBe("active")

    expect((await call(server, "POST", `/v1/sequences/${id}/pause`, { key })).body.data.status).toBe("paused")
    expectError(await call(server, "POST", `/v1/sequences/${id}/enrollments`, { key, json: { subscriber_id: reader.id } }), "conflict")
    expect((await call(server, "DELETE", `/v1/sequences/${id}`, { key })).status).toBe(204)
    expectError(await call(server, "GET", `/v1/sequences/${id}`, { key }), "not_found")
  })

  it("answers its errors in the error envelope, naming the bad step's path", async () => {
    const { key } = await server.seedOrganization()
    expectInvalid(await call(server, "POST", "/v1/sequences", {
      key,
      json: { name: "x", entry: { event: "api" }, steps: [{ end: true }, { wait: "PT0S" }] }
    }), ["steps[1].wait"])
    expectInvalid(await call(server, "POST", "/v1/sequences", { key, json: { name: "x", entry: { event: "api" } } }), ["steps"])
  })
})
