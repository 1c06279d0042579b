/**
 * /api/v1/email-triggers: triggers fed from the recorded events. The test server runs no worker,
 * so `work` does what the worker's fan-out, trigger and email jobs do.
 */
import { Outbox, SegmentRepository, SubscriberImports } from "@roster/application"
import { OrganizationId, SegmentId } from "@roster/domain"
import { Effect, Stream } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../../support/http-server.js"
import { deliverDue, fireTriggers } from "../../support/worker-steps.js"
import { createSubscriber, createTag, expectInvalid, expectProblem, uuidPattern } from "../helpers.js"

let server: TestHttpServer
beforeAll(async () => {
  server = await startHttpServer({ adapters: UnlimitedRateLimiterLive })
})
afterAll(() => server.close())

const path = "/api/v1/email-triggers"

/** The worker: recorded events fanned out (firings made), due firings fired, queued email handed over. */
const work = () =>
  server.run(Effect.zipRight(fireTriggers, deliverDue()))

const printedTo = (address: string) => server.emails().filter((email) => email.includes(`To: ${address}\n`))

const welcome = async (key: string) => {
  const template = await call(server, "POST", "/api/v1/templates", {
    key,
    json: { name: "Welcome", subject: "Welcome {{ subscriber.metadata.name }}", text: "Glad you came. {{ data.signature }}" }
  })
  expect(template.status, template.text).toBe(201)
  return template.body
}

describe("email triggers", () => {
  it("send a welcome email to each new subscriber once, from the committed event only", async () => {
    const { key } = await server.seedOrganization({ environment: "live" })
    const template = await welcome(key)
    const created = await call(server, "POST", path, {
      key,
      json: { name: "Welcome", event: "subscriber.created", template_id: template.id, data: { signature: "Ada" } }
    })
    expect(created.status, created.text).toBe(201)
    expect(created.body).toMatchObject({
      name: "Welcome",
      event: "subscriber.created",
      tag_id: null,
      template_id: template.id,
      kind: "marketing",
      delay_seconds: 0,
      status: "active",
      firings: { pending: 0, sent: 0, skipped: 0, failed: 0 }
    })
    expect(created.body.id).toMatch(uuidPattern)

    const reader = await createSubscriber(server, key, { metadata: { name: "Grace" } })
    // A create that fails records nothing, so nothing fires for it.
    expect((await call(server, "POST", "/api/v1/subscribers", { key, json: { email: reader.email } })).status).toBe(409)
    await work()
    await work()
    const printed = printedTo(reader.email)
    expect(printed).toHaveLength(1)
    expect(printed[0]).toContain("Subject: Welcome Grace")
    expect(printed[0]).toContain("Glad you came. Ada")
    expect(printed[0]).toContain("List-Unsubscribe-Post: List-Unsubscribe=One-Click")
    const got = await call(server, "GET", `${path}/${created.body.id}`, { key })
    expect(got.body.firings).toEqual({ pending: 0, sent: 1, skipped: 0, failed: 0 })
  })

  it("fire for no subscriber an import brings or tags, though webhooks hear of them", async () => {
    const { key, organization } = await server.seedOrganization({ environment: "live" })
    const template = await welcome(key)
    const vip = await createTag(server, key)
    for (const event of ["subscriber.created", "tag.subscribed"]) {
      const trigger = await call(server, "POST", path, { key, json: { name: event, event, template_id: template.id } })
      expect(trigger.status, trigger.text).toBe(201)
    }
    const known = await createSubscriber(server, key)
    await work()
    const before = server.emails().length
    const csv = `email,tags\nimported@example.com,${vip.name}\n${known.email},${vip.name}\n`
    const result = await server.run(Effect.flatMap(SubscriberImports, (imports) =>
      imports.run(Stream.make(new TextEncoder().encode(csv)), {
        organization,
        options: { resubscribe: false, createTags: true, encoding: "utf-8" }
      })))
    expect(result.counts).toMatchObject({ created: 1, updated: 1, failed: 0 })
    const events = await server.run(Effect.flatMap(Outbox, (outbox) => outbox.recorded(organization.id)))
    expect(events.filter((e) => e.data.source === "import").map((e) => e.type)).toEqual(["subscriber.created", "tag.subscribed"])
    await work()
    expect(server.emails()).toHaveLength(before)
  })

  it("fire on one tag after their delay, and send nothing to a subscriber no longer active by then", async () => {
    const { key } = await server.seedOrganization({ environment: "live" })
    const template = await welcome(key)
    const vip = await createTag(server, key)
    const other = await createTag(server, key)
    const trigger = await call(server, "POST", path, {
      key,
      json: { name: "VIP", event: "tag.subscribed", tag_id: vip.id, template_id: template.id, delay_seconds: 1 }
    })
    expect(trigger.status, trigger.text).toBe(201)
    const stays = await createSubscriber(server, key, { tags: [vip.id] })
    const leaves = await createSubscriber(server, key, { tags: [vip.id] })
    const elsewhere = await createSubscriber(server, key, { tags: [other.id] })
    await work()
    expect(printedTo(stays.email)).toHaveLength(0)
    await call(server, "PUT", `/api/v1/subscribers/${leaves.id}`, { key, json: { status: "unsubscribed" } })
    await new Promise((resolve) => setTimeout(resolve, 1_100))
    await work()
    expect(printedTo(stays.email)).toHaveLength(1)
    expect(printedTo(leaves.email)).toHaveLength(0)
    expect(printedTo(elsewhere.email)).toHaveLength(0)
    const got = await call(server, "GET", `${path}/${trigger.body.id}`, { key })
    expect(got.body.firings).toEqual({ pending: 0, sent: 1, skipped: 1, failed: 0 })
  })

  it("with a segment, fire only for subscribers it matches when the wait ends", async () => {
    const { key } = await server.seedOrganization({ environment: "live" })
    const template = await welcome(key)
    const pro = await call(server, "POST", "/api/v1/segments", {
      key,
      json: { name: "Pro", filter: { field: "metadata.plan", op: "eq", value: "pro" } }
    })
    expect(pro.status, pro.text).toBe(201)
    const trigger = await call(server, "POST", path, {
      key,
      json: { name: "Pro welcome", event: "subscriber.created", template_id: template.id, segment_id: pro.body.id, delay_seconds: 1 }
    })
    expect(trigger.status, trigger.text).toBe(201)
    expect(trigger.body.segment_id).toBe(pro.body.id)
    const stays = await createSubscriber(server, key, { metadata: { plan: "pro", name: "Ada" } })
    const upgrades = await createSubscriber(server, key, { metadata: { plan: "free", name: "Bob" } })
    const downgrades = await createSubscriber(server, key, { metadata: { plan: "pro", name: "Cyd" } })
    await work()
    // Read when the wait ends, not when the event came.
    await call(server, "PUT", `/api/v1/subscribers/${upgrades.id}`, { key, json: { metadata: { plan: "pro", name: "Bob" } } })
    await call(server, "PUT", `/api/v1/subscribers/${downgrades.id}`, { key, json: { metadata: { plan: "free", name: "Cyd" } } })
    await new Promise((resolve) => setTimeout(resolve, 1_100))
    await work()
    expect(printedTo(stays.email)).toHaveLength(1)
    expect(printedTo(stays.email)[0]).toContain("Subject: Welcome Ada")
    expect(printedTo(upgrades.email)).toHaveLength(1)
    expect(printedTo(downgrades.email)).toHaveLength(0)
    const got = await call(server, "GET", `${path}/${trigger.body.id}`, { key })
    expect(got.body.firings).toEqual({ pending: 0, sent: 2, skipped: 1, failed: 0 })
  })

  it("refuse a segment of another organization or an unknown one with a 400 naming segment_id, and keep the segment they use", async () => {
    const { key } = await server.seedOrganization()
    const other = await server.seedOrganization()
    const template = await welcome(key)
    const filter = { field: "status", op: "eq", value: "active" }
    const mine = (await call(server, "POST", "/api/v1/segments", { key, json: { name: "Active", filter } })).body
    const theirs = (await call(server, "POST", "/api/v1/segments", { key: other.key, json: { name: "Active", filter } })).body
    const base = { name: "T", event: "subscriber.created", template_id: template.id }
    expectInvalid(await call(server, "POST", path, { key, json: { ...base, segment_id: theirs.id } }), path, ["segment_id"])
    expectInvalid(await call(server, "POST", path, { key, json: { ...base, segment_id: "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10" } }), path, [
      "segment_id"
    ])
    expectInvalid(await call(server, "POST", path, { key, json: { ...base, segment_id: 7 } }), path, ["segment_id"])
    expect((await call(server, "GET", path, { key })).body.total).toBe(0)

    const trigger = (await call(server, "POST", path, { key, json: base })).body
    expect(trigger.segment_id).toBeNull()
    const at = `${path}/${trigger.id}`
    expectInvalid(await call(server, "PUT", at, { key, json: { segment_id: theirs.id } }), at, ["segment_id"])
    const given = await call(server, "PUT", at, { key, json: { segment_id: mine.id } })
    expect(given.status, given.text).toBe(200)
    expect(given.body.segment_id).toBe(mine.id)
    expect((await call(server, "PUT", at, { key, json: { name: "Renamed" } })).body.segment_id).toBe(mine.id)

    const segmentPath = `/api/v1/segments/${mine.id}`
    const refused = await call(server, "DELETE", segmentPath, { key })
    expectProblem(refused, "conflict", segmentPath)
    expect(refused.body.detail).toContain(`the condition of trigger ${trigger.id}`)
    expect((await call(server, "GET", segmentPath, { key })).status).toBe(200)
    const removed = await call(server, "PUT", at, { key, json: { segment_id: null } })
    expect(removed.body.segment_id).toBeNull()
    expect((await call(server, "DELETE", segmentPath, { key })).status).toBe(204)
  })

  it("whose segment went behind the API's back send nothing, and count the firing skipped", async () => {
    const { key, organization } = await server.seedOrganization({ environment: "live" })
    const template = await welcome(key)
    const everyone = await call(server, "POST", "/api/v1/segments", { key, json: { name: "All", filter: { all: [] } } })
    const trigger = await call(server, "POST", path, {
      key,
      json: { name: "Welcome", event: "subscriber.created", template_id: template.id, segment_id: everyone.body.id }
    })
    expect(trigger.status, trigger.text).toBe(201)
    await server.run(Effect.flatMap(SegmentRepository, (segments) =>
      segments.delete(OrganizationId.make(organization.id), SegmentId.make(everyone.body.id))))
    const reader = await createSubscriber(server, key)
    await work()
    expect(printedTo(reader.email)).toHaveLength(0)
    expect((await call(server, "GET", `${path}/${trigger.body.id}`, { key })).body.firings).toEqual({
      pending: 0,
      sent: 0,
      skipped: 1,
      failed: 0
    })
  })

  it("a paused trigger fires nothing until it is active again", async () => {
    const { key } = await server.seedOrganization({ environment: "live" })
    const template = await welcome(key)
    const trigger = await call(server, "POST", path, {
      key,
      json: { name: "Welcome", event: "subscriber.created", template_id: template.id, delay_seconds: 1 }
    })
    const reader = await createSubscriber(server, key)
    await work()
    const paused = await call(server, "PUT", `${path}/${trigger.body.id}`, { key, json: { status: "paused" } })
    expect(paused.body.status).toBe("paused")
    await new Promise((resolve) => setTimeout(resolve, 1_100))
    await work()
    expect(printedTo(reader.email)).toHaveLength(0)
    await call(server, "PUT", `${path}/${trigger.body.id}`, { key, json: { status: "active" } })
    await work()
    expect(printedTo(reader.email)).toHaveLength(1)
  })

  it("are listed, changed and deleted; bad input is a 4xx naming what was wrong", async () => {
    const { key } = await server.seedOrganization()
    const other = await server.seedOrganization()
    const template = await welcome(key)
    const theirs = await welcome(other.key)
    const tag = await createTag(server, key)
    const base = { name: "T", event: "subscriber.created", template_id: template.id }
    expectProblem(await call(server, "POST", path, { key, json: { ...base, template_id: theirs.id } }), "not_found", path)
    expectInvalid(await call(server, "POST", path, { key, json: { ...base, delay_seconds: 2_592_001 } }), path, ["delay_seconds"])
    expectInvalid(await call(server, "POST", path, { key, json: { ...base, event: "subscriber.deleted" } }), path, ["event"])
    expectInvalid(await call(server, "POST", path, { key, json: { ...base, tag_id: tag.id } }), path, ["tag_id"])
    expectInvalid(await call(server, "POST", path, { key, json: { ...base, extra: true } }), path, ["extra"])

    const first = await call(server, "POST", path, { key, json: base })
    const second = await call(server, "POST", path, { key, json: { ...base, name: "U", event: "tag.subscribed", tag_id: tag.id } })
    const listed = await call(server, "GET", `${path}?limit=1`, { key })
    expect(listed.body.items.map((t: { id: string }) => t.id)).toEqual([first.body.id])
    expect(listed.body.total).toBe(2)
    const moved = await call(server, "PUT", `${path}/${second.body.id}`, { key, json: { event: "subscriber.created" } })
    expect(moved.body).toMatchObject({ event: "subscriber.created", tag_id: null })
    expectProblem(await call(server, "GET", `${path}/${first.body.id}`, { key: other.key }), "not_found", `${path}/${first.body.id}`)
    expect((await call(server, "DELETE", `${path}/${first.body.id}`, { key })).status).toBe(204)
    expectProblem(await call(server, "GET", `${path}/${first.body.id}`, { key }), "not_found", `${path}/${first.body.id}`)
    const reader = await server.createApiKey(other.organization, ["triggers:read"])
    expectProblem(await call(server, "POST", path, { key: reader, json: base }), "forbidden", path)
  })
})
