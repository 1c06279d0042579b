/** Campaigns in the overview form: /v1/campaigns with PATCH, the `data` envelope, numbered pages and the error envelope. */
import { CampaignSending } from "@roster/application"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MAX_RENDER_WORK } from "../../../adapters/liquid/index.js"
import { call, startHttpServer, type TestHttpServer } from "../../support/http-server.js"
import { runawayTemplate } from "../../support/runaway-template.js"
import { deliverDue, fixAudiences } from "../../support/worker-steps.js"
import { createSubscriber, expectError, expectInvalid, uuidPattern } from "./helpers.js"

let server: TestHttpServer
beforeAll(async () => {
  server = await startHttpServer({ form: "overview" })
})
afterAll(() => server.close())

const nothing = "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"

/** What the worker does: the audience taken, then every due batch handed over. */
const work = () =>
  server.run(Effect.zipRight(fixAudiences(), deliverDue()))

describe("/v1/campaigns", () => {
  it("drafts, pages, changes, counts, sends and duplicates campaigns in the envelope", async () => {
    const { key, organization } = await server.seedOrganization({ environment: "live" })
    const tag = await call(server, "POST", "/v1/tags", { key, json: { name: "Weekly" } })
    const reader = await createSubscriber(server, key, { first_name: "Ada", tags: ["Weekly"] })
    await createSubscriber(server, key, { first_name: "Bob" })
    const created = await call(server, "POST", "/v1/campaigns", {
      key,
      json: {
        name: "Weekly 1",
        kind: "marketing",
        subject: "Hi {{ subscriber.first_name }}",
        text: "Issue {{ data.issue }}",
        data: { issue: 1 },
        audience: { tag_ids: [tag.body.data.id] }
      }
    })
    expect(created.status, created.text).toBe(201)
    expect(created.body.data).toMatchObject({ id: expect.stringMatching(uuidPattern), status: "draft", stats: { recipients: 0 } })
    const id = created.body.data.id
    await call(server, "POST", "/v1/campaigns", { key, json: { name: "Weekly 2", kind: "marketing", subject: "s", text: "t" } })

    const page = await call(server, "GET", "/v1/campaigns?per_page=1&page=2", { key })
    expect(page.body.meta).toEqual({ total: 2, page: 2, per_page: 1, total_pages: 2 })
    expect(page.body.data[0].name).toBe("Weekly 1")
    expect((await call(server, "GET", "/v1/campaigns?status=sent", { key })).body.meta.total).toBe(0)

    const patched = await call(server, "PATCH", `/v1/campaigns/${id}`, { key, json: { name: "Weekly one" } })
    expect(patched.body.data.name).toBe("Weekly one")
    expect((await call(server, "POST", `/v1/campaigns/${id}/count-recipients`, { key })).body.data).toEqual({ recipients: 1 })

    const sending = await call(server, "POST", `/v1/campaigns/${id}/send`, { key })
    expect(sending.status, sending.text).toBe(200)
    expect(sending.body.data.status).toBe("sending")
    expect(await work()).toBe(1)
    const sent = await call(server, "GET", `/v1/campaigns/${id}`, { key })
    expect(sent.body.data).toMatchObject({ status: "sent", stats: { recipients: 1, sent: 1 } })
    const printed = server.emails().filter((email) => email.includes(`To: ${reader.email}\n`))
    expect(printed).toHaveLength(1)
    expect(printed[0]).toContain("Subject: Hi Ada")
    expect(printed[0]).toContain("Issue 1")
    expect(printed[0]).toContain(`From: "${organization.name}"`)

    const copy = await call(server, "POST", `/v1/campaigns/${id}/duplicate`, { key })
    expect(copy.status).toBe(201)
    expect(copy.body.data).toMatchObject({ name: "Weekly one (copy)", status: "draft" })
  })

  it("a campaign that does not say its kind is marketing: unsubscribed subscribers get nothing, the rest List-Unsubscribe", async () => {
    const { key } = await server.seedOrganization({ environment: "live" })
    const tag = await call(server, "POST", "/v1/tags", { key, json: { name: "Monthly" } })
    const staying = await createSubscriber(server, key, { tags: ["Monthly"] })
    const gone = await createSubscriber(server, key, { tags: ["Monthly"] })
    await call(server, "PATCH", `/v1/subscribers/${gone.id}`, { key, json: { status: "unsubscribed" } })
    const created = await call(server, "POST", "/v1/campaigns", {
      key,
      json: { name: "No kind", subject: "Hello", text: "News", audience: { tag_ids: [tag.body.data.id] } }
    })
    expect(created.status, created.text).toBe(201)
    expect(created.body.data.kind).toBe("marketing")
    const id = created.body.data.id
    expect((await call(server, "POST", `/v1/campaigns/${id}/count-recipients`, { key })).body.data).toEqual({ recipients: 1 })
    expect((await call(server, "POST", `/v1/campaigns/${id}/send`, { key })).status).toBe(200)
    expect(await work()).toBe(1)
    const printedTo = (address: string) => server.emails().filter((email) => email.includes(`To: ${address}\n`))
    expect(printedTo(gone.email)).toHaveLength(0)
    expect(printedTo(staying.email)[0]).toContain("List-Unsubscribe-Post: List-Unsubscribe=One-Click")
  })

  it("send with scheduled_at schedules the campaign and the worker sends it when its time comes", async () => {
    const { key } = await server.seedOrganization({ environment: "live" })
    const reader = await createSubscriber(server, key)
    const draft = await call(server, "POST", "/v1/campaigns", { key, json: { name: "Soon", subject: "s", text: "t" } })
    const id = draft.body.data.id
    expectInvalid(await call(server, "POST", `/v1/campaigns/${id}/send`, { key, json: { sendAt: "2031-01-01T00:00:00Z" } }), [
      "sendAt"
    ])
    expectInvalid(
      await call(server, "POST", `/v1/campaigns/${id}/send`, { key, json: { scheduled_at: "2001-01-01T00:00:00Z" } }),
      ["scheduled_at"]
    )
    expect((await call(server, "GET", `/v1/campaigns/${id}`, { key })).body.data.status).toBe("draft")

    const soon = new Date(Date.now() + 1_200).toISOString()
    const scheduled = await call(server, "POST", `/v1/campaigns/${id}/send`, { key, json: { scheduled_at: soon } })
    expect(scheduled.status, scheduled.text).toBe(200)
    expect(scheduled.body.data).toMatchObject({ status: "scheduled", scheduled_at: soon })
    const startDue = () => server.run(Effect.flatMap(CampaignSending, (sending) => sending.startDue(100)))
    await startDue()
    expect(await work()).toBe(0)
    await new Promise((resolve) => setTimeout(resolve, 1_300))
    await startDue()
    expect(await work()).toBe(1)
    expect(server.emails().filter((email) => email.includes(`To: ${reader.email}\n`))).toHaveLength(1)
    expect((await call(server, "GET", `/v1/campaigns/${id}`, { key })).body.data.status).toBe("sent")
  })

  it("the other actions take no fields: no body and {} work, a field is a 400 naming it", async () => {
    const { key } = await server.seedOrganization()
    await createSubscriber(server, key)
    const draft = await call(server, "POST", "/v1/campaigns", { key, json: { name: "x", subject: "s", text: "t" } })
    const at = (name: string) => `/v1/campaigns/${draft.body.data.id}/${name}`
    for (const name of ["count-recipients", "duplicate", "cancel", "retry"]) {
      expectInvalid(await call(server, "POST", at(name), { key, json: { now: true } }), ["now"])
    }
    expect((await call(server, "GET", "/v1/campaigns", { key })).body.meta.total).toBe(1)
    expect((await call(server, "POST", at("count-recipients"), { key, json: {} })).body.data).toEqual({ recipients: 1 })
    expect((await call(server, "POST", at("duplicate"), { key })).status).toBe(201)
  })

  it("go to a segment, fixed when sending starts, and refuse one of another organization with a 400 naming audience.segment_id", async () => {
    const { key } = await server.seedOrganization({ environment: "live" })
    const other = await server.seedOrganization()
    const pro = { field: "metadata.plan", op: "eq", value: "pro" }
    const made = await call(server, "POST", "/v1/segments", { key, json: { name: "Pro", filter: pro } })
    expect(made.status, made.text).toBe(201)
    const segmentId = made.body.data.id
    const theirs = await call(server, "POST", "/v1/segments", { key: other.key, json: { name: "Pro", filter: pro } })
    const muted = await call(server, "POST", "/v1/tags", { key, json: { name: "Muted" } })
    const reader = await createSubscriber(server, key, { first_name: "Ada", metadata: { plan: "pro" } })
    const quiet = await createSubscriber(server, key, { first_name: "Cyd", metadata: { plan: "pro" }, tags: ["Muted"] })
    const free = await createSubscriber(server, key, { first_name: "Bob", metadata: { plan: "free" } })
    const body = { name: "Pro news", subject: "Hi {{ subscriber.first_name }}", text: "News" }

    expectInvalid(await call(server, "POST", "/v1/campaigns", { key, json: { ...body, audience: { segment_id: theirs.body.data.id } } }), [
      "audience.segment_id"
    ])
    expectInvalid(await call(server, "POST", "/v1/campaigns", {
      key,
      json: { ...body, audience: { segment_id: segmentId, tag_ids: [muted.body.data.id] } }
    }), ["audience.segment_id"])
    const created = await call(server, "POST", "/v1/campaigns", {
      key,
      json: { ...body, audience: { segment_id: segmentId, exclude_tag_ids: [muted.body.data.id] } }
    })
    expect(created.status, created.text).toBe(201)
    expect(created.body.data.audience).toEqual({ tag_ids: [], exclude_tag_ids: [muted.body.data.id], segment_id: segmentId })
    const id = created.body.data.id
    expect((await call(server, "POST", `/v1/campaigns/${id}/count-recipients`, { key })).body.data).toEqual({ recipients: 1 })
    // While the campaign waits, its segment stays.
    expectError(await call(server, "DELETE", `/v1/segments/${segmentId}`, { key }), "conflict")

    expect((await call(server, "POST", `/v1/campaigns/${id}/send`, { key })).status).toBe(200)
    const late = await createSubscriber(server, key, { first_name: "Eve", metadata: { plan: "pro" } })
    expect(await work()).toBe(1)
    const printedTo = (address: string) => server.emails().filter((email) => email.includes(`To: ${address}\n`))
    expect(printedTo(reader.email)).toHaveLength(1)
    expect(printedTo(reader.email)[0]).toContain("Subject: Hi Ada")
    for (const left of [quiet, free, late]) expect(printedTo(left.email)).toHaveLength(0)
    expect((await call(server, "GET", `/v1/campaigns/${id}`, { key })).body.data).toMatchObject({ status: "sent", stats: { sent: 1 } })
    expect((await call(server, "DELETE", `/v1/segments/${segmentId}`, { key })).status).toBe(204)
  })

  it("answers its errors in the error envelope", async () => {
    const { key } = await server.seedOrganization()
    const body = { name: "x", kind: "marketing", subject: "s", text: "t" }
    expectInvalid(await call(server, "POST", "/v1/campaigns", { key, json: { ...body, extra: 1 } }), ["extra"])
    expectInvalid(await call(server, "POST", "/v1/campaigns", { key, json: { ...body, scheduled_at: "2000-01-01T00:00:00Z" } }), [
      "scheduled_at"
    ])
    expectError(await call(server, "POST", "/v1/campaigns", { key, json: { ...body, audience: { tag_ids: [nothing] } } }), "not_found")
    expectError(await call(server, "POST", `/v1/campaigns/${nothing}/send`, { key }), "not_found")
    const draft = await call(server, "POST", "/v1/campaigns", { key, json: body })
    expectError(await call(server, "POST", `/v1/campaigns/${draft.body.data.id}/cancel`, { key }), "conflict")
    expectInvalid(await call(server, "POST", `/v1/campaigns/${draft.body.data.id}/send`, { key }), ["audience"])
    const other = await server.seedOrganization()
    expectError(await call(server, "PATCH", `/v1/campaigns/${draft.body.data.id}`, { key: other.key, json: { name: "y" } }), "not_found")
  })

  it("refuses at send a campaign whose content has a filter that would work for seconds, naming the limit; it stays a draft", async () => {
    const { key } = await server.seedOrganization({ environment: "live" })
    await call(server, "POST", "/v1/tags", { key, json: { name: "Weekly" } })
    await createSubscriber(server, key, { tags: ["Weekly"] })
    const tags = await call(server, "GET", "/v1/tags", { key })
    const created = await call(server, "POST", "/v1/campaigns", {
      key,
      json: { name: "Runaway", kind: "marketing", subject: "s", text: runawayTemplate, audience: { tag_ids: [tags.body.data[0].id] } }
    })
    expect(created.status, created.text).toBe(201)
    const id = created.body.data.id
    const refused = await call(server, "POST", `/v1/campaigns/${id}/send`, { key })
    expectInvalid(refused, ["text"])
    expect(refused.body.error.details[0].message).toContain(`makes more than ${MAX_RENDER_WORK} elements and characters`)
    expect((await call(server, "GET", `/v1/campaigns/${id}`, { key })).body.data.status).toBe("draft")
  })
})
