/**
 * /api/v1/campaigns: drafts, the state table, the audience and the send. The test server runs no
 * worker, so `work` does what the worker's campaign job and email lanes do, step by step.
 */
import { CampaignSending, EmailUsage, OrganizationRepository, PRINCIPAL_CACHE_TTL_MS, SegmentRepository } from "@roster/application"
import { Organization, OrganizationId, SegmentId, usageMonth } from "@roster/domain"
import { Effect, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MAX_RENDER_WORK } from "../../../adapters/liquid/index.js"
import { call, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../../support/http-server.js"
import { runawayTemplate } from "../../support/runaway-template.js"
import { deliverDue, fixAudiences } from "../../support/worker-steps.js"
import { createSubscriber, createTag, expectInvalid, expectProblem, uuidPattern } from "../helpers.js"

let server: TestHttpServer
beforeAll(async () => {
  server = await startHttpServer({ adapters: UnlimitedRateLimiterLive })
})
afterAll(() => server.close())

const path = "/api/v1/campaigns"

/** The worker's campaign job: scheduled campaigns started, then every open audience taken. */
const takeAudiences = (chunk = 1_000) =>
  server.run(Effect.zipRight(Effect.flatMap(CampaignSending, (sending) => sending.startDue(100)), fixAudiences(chunk)))

/** The worker's email lanes: due batches handed over until none is left, or `batches` of them. */
const deliver = (batchSize = 100, batches = Infinity) => server.run(deliverDue({ batchSize, batches }))

const work = async () => {
  await takeAudiences()
  return deliver()
}

/** An organization with a live key, a tag, and `count` subscribers with that tag. */
const audience = async (count: number) => {
  const seeded = await server.seedOrganization({ environment: "live" })
  const tag = await createTag(server, seeded.key)
  const readers = []
  for (let i = 0; i < count; i++) {
    readers.push(await createSubscriber(server, seeded.key, { tags: [tag.id], metadata: { name: `Reader ${i}` } }))
  }
  return { ...seeded, tag, readers }
}

const draft = (key: string, body: Record<string, unknown>) =>
  call(server, "POST", path, {
    key,
    json: {
      name: "November issue",
      kind: "marketing",
      subject: "Hello {{ subscriber.metadata.name }}",
      html: "<p>Hi {{ subscriber.metadata.name }}</p><a href=\"{{ unsubscribe_url }}\">Unsubscribe</a>",
      ...body
    }
  })

const action = (key: string, id: string, name: string, headers: Record<string, string> = {}) =>
  call(server, "POST", `${path}/${id}/${name}`, { key, headers })

const printedTo = (address: string) => server.emails().filter((email) => email.includes(`To: ${address}\n`))

const segment = async (key: string, filter: unknown) => {
  const made = await call(server, "POST", "/api/v1/segments", { key, json: { name: "Pro readers", filter } })
  expect(made.status, made.text).toBe(201)
  return made.body as { readonly id: string }
}

const pro = { field: "metadata.plan", op: "eq", value: "pro" }

describe("campaigns", () => {
  it("are drafted, read, listed newest first, changed and duplicated", async () => {
    const { key, tag } = await audience(0)
    const created = await draft(key, { audience: { tag_ids: [tag.id] }, data: { issue: 11 } })
    expect(created.status, created.text).toBe(201)
    expect(created.body).toMatchObject({
      name: "November issue",
      kind: "marketing",
      status: "draft",
      template_id: null,
      audience: { tag_ids: [tag.id], exclude_tag_ids: [] },
      data: { issue: 11 },
      scheduled_at: null,
      started_at: null,
      sandboxed: false,
      stats: { recipients: 0, sent: 0, failed: 0 }
    })
    expect(created.body.id).toMatch(uuidPattern)
    const second = await draft(key, { name: "December issue" })

    const listed = await call(server, "GET", `${path}?limit=1`, { key })
    expect(listed.status).toBe(200)
    expect(listed.body.items.map((c: { id: string }) => c.id)).toEqual([second.body.id])
    expect(listed.body.total).toBe(2)
    const next = await call(server, "GET", `${path}?limit=1&cursor=${listed.body.next_cursor}`, { key })
    expect(next.body.items.map((c: { id: string }) => c.id)).toEqual([created.body.id])

    const changed = await call(server, "PUT", `${path}/${created.body.id}`, { key, json: { name: "Issue 11", text: "Plain" } })
    expect(changed.status, changed.text).toBe(200)
    expect(changed.body).toMatchObject({ name: "Issue 11", text: "Plain", subject: "Hello {{ subscriber.metadata.name }}" })

    const template = await call(server, "POST", "/api/v1/templates", { key, json: { name: "T", subject: "S", text: "B" } })
    const switched = await call(server, "PUT", `${path}/${created.body.id}`, { key, json: { template_id: template.body.id } })
    expect(switched.status, switched.text).toBe(200)
    expect(switched.body).toMatchObject({ template_id: template.body.id, subject: null, html: null, text: null })

    const copy = await action(key, created.body.id, "duplicate")
    expect(copy.status, copy.text).toBe(201)
    expect(copy.body).toMatchObject({ name: "Issue 11 (copy)", status: "draft", template_id: template.body.id })
    expect(copy.body.id).not.toBe(created.body.id)
  })

  it("refuse bad input with a 4xx naming what was wrong, and keep nothing", async () => {
    const { key } = await audience(0)
    const other = await audience(0)
    const otherTemplate = await call(server, "POST", "/api/v1/templates", {
      key: other.key,
      json: { name: "T", subject: "S", text: "B" }
    })
    const unknownTag = "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"
    expectProblem(await draft(key, { audience: { tag_ids: [other.tag.id] } }), "not_found", path)
    expectProblem(await draft(key, { audience: { exclude_tag_ids: [unknownTag] } }), "not_found", path)
    expectProblem(await draft(key, { subject: undefined, html: undefined, template_id: otherTemplate.body.id }), "not_found", path)
    expectInvalid(await draft(key, { scheduled_at: "2001-01-01T00:00:00Z" }), path, ["scheduled_at"])
    expectInvalid(await draft(key, { scheduled_at: "tomorrow" }), path, ["scheduled_at"])
    expectInvalid(await draft(key, { html: "{% if %}" }), path, ["html"])
    expectInvalid(await draft(key, { template_id: otherTemplate.body.id }), path, ["template_id"])
    expectInvalid(await draft(key, { subject: undefined }), path, ["subject"])
    expectInvalid(await draft(key, { kind: "newsletter" }), path, ["kind"])
    expectInvalid(await draft(key, { organization_id: unknownTag }), path, ["organization_id"])
    expect((await call(server, "GET", path, { key })).body.total).toBe(0)

    const mine = await draft(key, {})
    expectProblem(await call(server, "GET", `${path}/${mine.body.id}`, { key: other.key }), "not_found", `${path}/${mine.body.id}`)
    expectProblem(await action(other.key, mine.body.id, "send"), "not_found", `${path}/${mine.body.id}/send`)
    expectInvalid(await action(key, mine.body.id, "send"), `${path}/${mine.body.id}/send`, ["audience"])
  })

  it("go to a segment: counted and sent to whom it matches when sending starts, less excluded tags, through the worker", async () => {
    const { key } = await server.seedOrganization({ environment: "live" })
    const muted = await createTag(server, key)
    const readers = []
    for (let i = 0; i < 3; i++) readers.push(await createSubscriber(server, key, { metadata: { plan: "pro", name: `Reader ${i}` } }))
    const mutedReader = await createSubscriber(server, key, { tags: [muted.id], metadata: { plan: "pro", name: "Muted" } })
    const free = await createSubscriber(server, key, { metadata: { plan: "free", name: "Free" } })
    const gone = await createSubscriber(server, key, { metadata: { plan: "pro", name: "Gone" } })
    await call(server, "PUT", `/api/v1/subscribers/${gone.id}`, { key, json: { status: "unsubscribed" } })
    const pros = await segment(key, pro)

    const created = await draft(key, { audience: { segment_id: pros.id, exclude_tag_ids: [muted.id] } })
    expect(created.status, created.text).toBe(201)
    expect(created.body.audience).toEqual({ tag_ids: [], exclude_tag_ids: [muted.id], segment_id: pros.id })
    const campaign = created.body
    expect((await action(key, campaign.id, "count-recipients")).body).toEqual({ recipients: 3 })
    // The segment is read as it is when the count is asked: a new pro reader counts.
    const late = await createSubscriber(server, key, { metadata: { plan: "pro", name: "Late" } })
    expect((await action(key, campaign.id, "count-recipients")).body).toEqual({ recipients: 4 })

    const sent = await action(key, campaign.id, "send")
    expect(sent.status, sent.text).toBe(200)
    expect(sent.body).toMatchObject({ status: "sending", audience: { segment_id: pros.id } })
    // Fixed when sending started: a reader who joins the segment, or a new filter, changes nothing now.
    const after = await createSubscriber(server, key, { metadata: { plan: "pro", name: "After" } })
    const changed = await call(server, "PUT", `/api/v1/segments/${pros.id}`, { key, json: { filter: { all: [] } } })
    expect(changed.status, changed.text).toBe(200)

    expect(await work()).toBe(4)
    const done = await call(server, "GET", `${path}/${campaign.id}`, { key })
    expect(done.body).toMatchObject({ status: "sent", stats: { recipients: 4, sent: 4, failed: 0 } })
    for (const reader of [...readers, late]) expect(printedTo(reader.email), reader.email).toHaveLength(1)
    expect(printedTo(readers[0].email)[0]).toContain("Subject: Hello Reader 0")
    for (const left of [mutedReader, free, gone, after]) expect(printedTo(left.email), left.email).toHaveLength(0)
  })

  it("refuse a segment of another organization, an unknown one, and one beside tags, with a 400 naming audience.segment_id", async () => {
    const { key, tag } = await audience(0)
    const other = await server.seedOrganization()
    const theirs = await segment(other.key, pro)
    const mine = await segment(key, pro)
    const unknown = "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"
    for (const given of [{ segment_id: theirs.id }, { segment_id: unknown }, { segment_id: mine.id, tag_ids: [tag.id] }]) {
      const refused = await draft(key, { audience: given })
      expectInvalid(refused, path, ["audience.segment_id"])
    }
    expectInvalid(await draft(key, { audience: { segment_id: "pro" } }), path, ["audience.segment_id"])
    expect((await call(server, "GET", path, { key })).body.total).toBe(0)

    // A change naming a segment drops the tags, one naming tags drops the segment; null removes it.
    const byTags = (await draft(key, { audience: { tag_ids: [tag.id] } })).body
    const at = `${path}/${byTags.id}`
    const toSegment = await call(server, "PUT", at, { key, json: { audience: { segment_id: mine.id } } })
    expect(toSegment.status, toSegment.text).toBe(200)
    expect(toSegment.body.audience).toEqual({ tag_ids: [], exclude_tag_ids: [], segment_id: mine.id })
    expectInvalid(await call(server, "PUT", at, { key, json: { audience: { segment_id: theirs.id } } }), at, ["audience.segment_id"])
    expectInvalid(
      await call(server, "PUT", at, { key, json: { audience: { segment_id: mine.id, tag_ids: [tag.id] } } }),
      at,
      ["audience.segment_id"]
    )
    expect((await call(server, "GET", at, { key })).body.audience.segment_id).toBe(mine.id)
    const toTags = await call(server, "PUT", at, { key, json: { audience: { tag_ids: [tag.id] } } })
    expect(toTags.body.audience).toEqual({ tag_ids: [tag.id], exclude_tag_ids: [], segment_id: null })
    await call(server, "PUT", at, { key, json: { audience: { segment_id: mine.id } } })
    const removed = await call(server, "PUT", at, { key, json: { audience: { segment_id: null } } })
    expect(removed.body.audience).toEqual({ tag_ids: [], exclude_tag_ids: [], segment_id: null })
  })

  it("whose segment is gone are refused at count and send with a 400 naming audience.segment_id, or fail at their time", async () => {
    const { key, organization } = await server.seedOrganization({ environment: "live" })
    const reader = await createSubscriber(server, key, { metadata: { plan: "pro", name: "Ada" } })
    const pros = await segment(key, pro)
    const first = (await draft(key, { audience: { segment_id: pros.id } })).body
    expect((await action(key, first.id, "send")).status).toBe(200)
    expect(await work()).toBe(1)
    // The campaign is sent: its segment may go, and a copy of it keeps naming it.
    expect((await call(server, "DELETE", `/api/v1/segments/${pros.id}`, { key })).status).toBe(204)
    const copy = (await action(key, first.id, "duplicate")).body
    expect(copy.audience.segment_id).toBe(pros.id)
    for (const name of ["count-recipients", "send"]) {
      expectInvalid(await action(key, copy.id, name), `${path}/${copy.id}/${name}`, ["audience.segment_id"])
    }
    expect((await call(server, "GET", `${path}/${copy.id}`, { key })).body.status).toBe("draft")

    // A scheduled campaign whose segment went behind the API's back fails when its time comes, saying why.
    const soon = await segment(key, pro)
    const scheduled = (await draft(key, { audience: { segment_id: soon.id }, scheduled_at: new Date(Date.now() + 1_000).toISOString() })).body
    expect((await action(key, scheduled.id, "send")).body.status).toBe("scheduled")
    await server.run(Effect.flatMap(SegmentRepository, (segments) =>
      segments.delete(OrganizationId.make(organization.id), SegmentId.make(soon.id))))
    await new Promise((resolve) => setTimeout(resolve, 1_100))
    expect(await work()).toBe(0)
    const failed = (await call(server, "GET", `${path}/${scheduled.id}`, { key })).body
    expect(failed).toMatchObject({ status: "failed", started_at: null })
    expect(failed.failure_reason).toContain("could not start: audience.segment_id")
    // Its retry would start it: refused the same way, and it stays failed until it has another audience.
    const retry = `${path}/${scheduled.id}/retry`
    expectInvalid(await action(key, scheduled.id, "retry"), retry, ["audience.segment_id"])
    expect((await call(server, "GET", `${path}/${scheduled.id}`, { key })).body.status).toBe("failed")
    expect(printedTo(reader.email)).toHaveLength(1)
  })

  it("whose content has a filter that would work for seconds are refused at send with a 400 naming the limit, and stay drafts", async () => {
    const { key, tag } = await audience(1)
    const inline = (await draft(key, { html: runawayTemplate, audience: { tag_ids: [tag.id] } })).body
    const template = await call(server, "POST", "/api/v1/templates", { key, json: { name: "T", subject: "S", text: runawayTemplate } })
    expect(template.status, template.text).toBe(201)
    const byTemplate = (await draft(key, { subject: undefined, html: undefined, template_id: template.body.id, audience: { tag_ids: [tag.id] } })).body
    for (const [campaign, field] of [[inline, "html"], [byTemplate, "text"]] as const) {
      const refused = await action(key, campaign.id, "send")
      expectInvalid(refused, `${path}/${campaign.id}/send`, [field])
      expect(refused.body.detail).toContain(`makes more than ${MAX_RENDER_WORK} elements and characters`)
      expect((await call(server, "GET", `${path}/${campaign.id}`, { key })).body).toMatchObject({ status: "draft", started_at: null })
    }
    expect(await work()).toBe(0)
  })

  it("send to the audience the count said, once, each email rendered for its subscriber with one-click unsubscribe", async () => {
    const { key, readers, tag } = await audience(3)
    const excluded = await createTag(server, key)
    const tagged = await call(server, "POST", `/api/v1/subscribers/${readers[2].id}/tags`, { key, json: { tag_ids: [excluded.id] } })
    expect(tagged.status, tagged.text).toBeLessThan(300)
    const unsubscribed = await createSubscriber(server, key, { tags: [tag.id] })
    await call(server, "PUT", `/api/v1/subscribers/${unsubscribed.id}`, { key, json: { status: "unsubscribed" } })
    const campaign = (await draft(key, { audience: { tag_ids: [tag.id], exclude_tag_ids: [excluded.id] } })).body

    const counted = await action(key, campaign.id, "count-recipients")
    expect(counted.status, counted.text).toBe(200)
    expect(counted.body).toEqual({ recipients: 2 })

    const sent = await action(key, campaign.id, "send", { "Idempotency-Key": `send-${campaign.id}` })
    expect(sent.status, sent.text).toBe(200)
    expect(sent.body.status).toBe("sending")
    expect(sent.body.started_at).not.toBeNull()
    const replayed = await action(key, campaign.id, "send", { "Idempotency-Key": `send-${campaign.id}` })
    expect(replayed.headers.get("idempotent-replayed")).toBe("true")
    const again = await action(key, campaign.id, "send")
    expectProblem(again, "conflict", `${path}/${campaign.id}/send`)
    expect(again.body.detail).toContain("is sending")

    expect(await work()).toBe(2)
    const done = await call(server, "GET", `${path}/${campaign.id}`, { key })
    expect(done.body).toMatchObject({ status: "sent", failure_reason: null })
    expect(done.body.stats).toMatchObject({ recipients: counted.body.recipients, sent: 2, queued: 0, failed: 0 })
    expect(done.body.finished_at).not.toBeNull()

    for (const [i, reader] of readers.slice(0, 2).entries()) {
      const printed = printedTo(reader.email)
      expect(printed, reader.email).toHaveLength(1)
      expect(printed[0]).toContain(`Subject: Hello Reader ${i}`)
      expect(printed[0]).toContain("List-Unsubscribe-Post: List-Unsubscribe=One-Click")
    }
    expect(printedTo(readers[2].email)).toHaveLength(0)
    expect(printedTo(unsubscribed.email)).toHaveLength(0)

    const emails = await call(server, "GET", `/api/v1/emails?subscriber_id=${readers[0].id}`, { key })
    expect(emails.body.items[0]).toMatchObject({ campaign_id: campaign.id, status: "sent", subject: "Hello Reader 0" })
    const url = /<(http:\/\/localhost:3000\/unsubscribe\?token=[^>]+)>/.exec(emails.body.items[0].headers["List-Unsubscribe"] ?? "")
    expect(url).toBeNull() // headers are not kept for campaign emails; the printed email carries them
    const header = /List-Unsubscribe: <([^>]+)>/.exec(printedTo(readers[0].email)[0]!)![1]!
    const unsubscribe = await fetch(header.replace("http://localhost:3000", server.baseUrl), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "List-Unsubscribe=One-Click"
    })
    expect(unsubscribe.status).toBeLessThan(300)
    const reader = await call(server, "GET", `/api/v1/subscribers/${readers[0].id}`, { key })
    expect(reader.body.status).toBe("unsubscribed")
  })

  it("transactional campaigns reach unsubscribed subscribers too, never bounced ones", async () => {
    const { key, readers, tag } = await audience(2)
    await call(server, "PUT", `/api/v1/subscribers/${readers[0].id}`, { key, json: { status: "unsubscribed" } })
    const campaign = (await draft(key, { kind: "transactional", audience: { tag_ids: [tag.id] } })).body
    expect((await action(key, campaign.id, "count-recipients")).body).toEqual({ recipients: 2 })
    const marketing = (await draft(key, { audience: { tag_ids: [tag.id] } })).body
    expect((await action(key, marketing.id, "count-recipients")).body).toEqual({ recipients: 1 })
    await action(key, campaign.id, "send")
    expect(await work()).toBe(2)
    expect(printedTo(readers[0].email)).toHaveLength(1)
    expect(printedTo(readers[0].email)[0]).not.toContain("List-Unsubscribe")
  })

  it("a campaign that does not say its kind is marketing: unsubscribed subscribers get nothing, the rest List-Unsubscribe", async () => {
    const { key, readers, tag } = await audience(2)
    await call(server, "PUT", `/api/v1/subscribers/${readers[0].id}`, { key, json: { status: "unsubscribed" } })
    const created = await call(server, "POST", path, {
      key,
      json: { name: "No kind", subject: "Hello", text: "News", audience: { tag_ids: [tag.id] } }
    })
    expect(created.status, created.text).toBe(201)
    expect(created.body.kind).toBe("marketing")
    expect((await action(key, created.body.id, "count-recipients")).body).toEqual({ recipients: 1 })
    expect((await action(key, created.body.id, "send")).status).toBe(200)
    expect(await work()).toBe(1)
    expect(printedTo(readers[0].email)).toHaveLength(0)
    expect(printedTo(readers[1].email)[0]).toContain("List-Unsubscribe-Post: List-Unsubscribe=One-Click")
  })

  it("a subscriber who unsubscribes while the campaign sends gets nothing more", async () => {
    const { key, readers, tag } = await audience(3)
    const campaign = (await draft(key, { audience: { tag_ids: [tag.id] } })).body
    await action(key, campaign.id, "send")
    await takeAudiences()
    await call(server, "PUT", `/api/v1/subscribers/${readers[1].id}`, { key, json: { status: "unsubscribed" } })
    await deliver()
    const done = await call(server, "GET", `${path}/${campaign.id}`, { key })
    expect(done.body.status).toBe("sent")
    expect(done.body.stats).toMatchObject({ recipients: 3, sent: 2, suppressed: 1 })
    expect(printedTo(readers[1].email)).toHaveLength(0)
  })

  it("cancel stops a campaign midway: no email goes out after it", async () => {
    const { key, readers, tag } = await audience(5)
    const campaign = (await draft(key, { audience: { tag_ids: [tag.id] } })).body
    await action(key, campaign.id, "send")
    await takeAudiences()
    expect(await deliver(2, 1)).toBe(2)
    const cancelled = await action(key, campaign.id, "cancel")
    expect(cancelled.status, cancelled.text).toBe(200)
    expect(cancelled.body.status).toBe("cancelled")
    expect(await deliver()).toBe(0)
    expect(readers.filter((r) => printedTo(r.email).length > 0)).toHaveLength(2)
    expectProblem(await action(key, campaign.id, "cancel"), "conflict", `${path}/${campaign.id}/cancel`)
    expectProblem(await action(key, campaign.id, "retry"), "conflict", `${path}/${campaign.id}/retry`)
    const changed = await call(server, "PUT", `${path}/${campaign.id}`, { key, json: { name: "x" } })
    expectProblem(changed, "conflict", `${path}/${campaign.id}`)
    expect(changed.body.detail).toContain("is cancelled")
    await server.run(Effect.flatMap(CampaignSending, (s) => s.tidy(100)))
    const after = await call(server, "GET", `${path}/${campaign.id}`, { key })
    expect(after.body.stats).toMatchObject({ recipients: 2, sent: 2, queued: 0 })
  })

  it("a scheduled campaign waits for its time, can be unscheduled, and starts when it comes", async () => {
    const { key, readers, tag } = await audience(1)
    const soon = new Date(Date.now() + 1_500).toISOString()
    const campaign = (await draft(key, { audience: { tag_ids: [tag.id] }, scheduled_at: soon })).body
    const scheduled = await action(key, campaign.id, "send")
    expect(scheduled.body).toMatchObject({ status: "scheduled", scheduled_at: soon })
    const unscheduled = await call(server, "PUT", `${path}/${campaign.id}`, { key, json: { scheduled_at: null } })
    expect(unscheduled.body.status).toBe("draft")
    const later = new Date(Date.now() + 1_000).toISOString()
    await call(server, "PUT", `${path}/${campaign.id}`, { key, json: { scheduled_at: later } })
    expect((await action(key, campaign.id, "send")).body.status).toBe("scheduled")
    await work()
    expect(printedTo(readers[0].email)).toHaveLength(0)
    await new Promise((resolve) => setTimeout(resolve, 1_100))
    expect(await work()).toBe(1)
    expect((await call(server, "GET", `${path}/${campaign.id}`, { key })).body.status).toBe("sent")
  })

  it("a scheduled campaign that could not start fails with why, and retry starts it once its content renders again", async () => {
    const { key, readers, tag } = await audience(1)
    const template = await call(server, "POST", "/api/v1/templates", { key, json: { name: "T", subject: "S", text: "Hi" } })
    expect(template.status, template.text).toBe(201)
    const soon = new Date(Date.now() + 1_500).toISOString()
    const campaign = (await draft(key, {
      subject: undefined,
      html: undefined,
      template_id: template.body.id,
      audience: { tag_ids: [tag.id] },
      scheduled_at: soon
    })).body
    expect((await action(key, campaign.id, "send")).body.status).toBe("scheduled")
    const templatePath = `/api/v1/templates/${template.body.id}`
    const broken = await call(server, "PUT", templatePath, { key, json: { text: runawayTemplate } })
    expect(broken.status, broken.text).toBe(200)
    await new Promise((resolve) => setTimeout(resolve, 1_600))
    expect(await work()).toBe(0)
    const failed = (await call(server, "GET", `${path}/${campaign.id}`, { key })).body
    expect(failed).toMatchObject({ status: "failed", started_at: null })
    expect(failed.failure_reason).toContain("could not start")
    // While its content still does not render, a retry is refused and the campaign stays failed.
    expectInvalid(await action(key, campaign.id, "retry"), `${path}/${campaign.id}/retry`, ["text"])
    expect((await call(server, "GET", `${path}/${campaign.id}`, { key })).body.status).toBe("failed")
    expect((await call(server, "PUT", templatePath, { key, json: { text: "Hi again" } })).status).toBe(200)
    const retried = await action(key, campaign.id, "retry")
    expect(retried.status, retried.text).toBe(200)
    expect(retried.body.status).toBe("sending")
    expect(await work()).toBe(1)
    expect(printedTo(readers[0].email)).toHaveLength(1)
    expect((await call(server, "GET", `${path}/${campaign.id}`, { key })).body).toMatchObject({
      status: "sent",
      stats: { recipients: 1, sent: 1 }
    })
  })

  it("send with scheduled_at schedules the campaign for that time instead of sending it", async () => {
    const { key, readers, tag } = await audience(1)
    const campaign = (await draft(key, { audience: { tag_ids: [tag.id] } })).body
    const at = `${path}/${campaign.id}/send`
    const inAnHour = new Date(Date.now() + 3_600_000).toISOString()
    const scheduled = await call(server, "POST", at, { key, json: { scheduled_at: inAnHour } })
    expect(scheduled.status, scheduled.text).toBe(200)
    expect(scheduled.body).toMatchObject({ status: "scheduled", scheduled_at: inAnHour, started_at: null })
    expect(await work()).toBe(0)
    expect(printedTo(readers[0].email)).toHaveLength(0)
    expect((await call(server, "GET", `${path}/${campaign.id}`, { key })).body).toMatchObject({
      status: "scheduled",
      scheduled_at: inAnHour,
      stats: { recipients: 0 }
    })
    // The body's time replaces the draft's own.
    const later = (await draft(key, { audience: { tag_ids: [tag.id] }, scheduled_at: inAnHour })).body
    const inTwoHours = new Date(Date.now() + 7_200_000).toISOString()
    const moved = await call(server, "POST", `${path}/${later.id}/send`, { key, json: { scheduled_at: inTwoHours } })
    expect(moved.body).toMatchObject({ status: "scheduled", scheduled_at: inTwoHours })
  })

  it("send refuses a scheduled_at that has passed or is not a time, and an unknown field, with a 400: the campaign stays a draft", async () => {
    const { key, readers, tag } = await audience(1)
    const campaign = (await draft(key, { audience: { tag_ids: [tag.id] } })).body
    const at = `${path}/${campaign.id}/send`
    const send = (json: unknown) => call(server, "POST", at, { key, json })
    const inAnHour = new Date(Date.now() + 3_600_000).toISOString()
    expectInvalid(await send({ scheduled_at: new Date(Date.now() - 60_000).toISOString() }), at, ["scheduled_at"])
    expectInvalid(await send({ scheduled_at: new Date(Date.now() + 400 * 86_400_000).toISOString() }), at, ["scheduled_at"])
    expectInvalid(await send({ scheduled_at: "in an hour" }), at, ["scheduled_at"])
    expectInvalid(await send({ scheduled_at: null }), at, ["scheduled_at"])
    expectInvalid(await send({ send_at: inAnHour }), at, ["send_at"])
    expectInvalid(await send({ scheduled_at: inAnHour, dry_run: true }), at, ["dry_run"])
    expectInvalid(await send([]), at, ["body"])
    expect(await work()).toBe(0)
    expect(printedTo(readers[0].email)).toHaveLength(0)
    expect((await call(server, "GET", `${path}/${campaign.id}`, { key })).body).toMatchObject({
      status: "draft",
      scheduled_at: null,
      started_at: null
    })
    // `{}` is no body at all: the draft is sent now.
    const sent = await send({})
    expect(sent.status, sent.text).toBe(200)
    expect(sent.body.status).toBe("sending")
    expect(await work()).toBe(1)
  })

  it("the other actions take no fields: no body, an empty one and {} work, a field is a 400 naming it and changes nothing", async () => {
    const { key, tag } = await audience(2)
    const campaign = (await draft(key, { audience: { tag_ids: [tag.id] } })).body
    const at = (name: string) => `${path}/${campaign.id}/${name}`
    for (const name of ["count-recipients", "duplicate", "send", "cancel", "retry"]) {
      expectInvalid(await call(server, "POST", at(name), { key, json: { force: true } }), at(name), ["force"])
    }
    const list = await call(server, "GET", path, { key })
    expect(list.body.total).toBe(1)
    expect(list.body.items[0].status).toBe("draft")

    const counted = await call(server, "POST", at("count-recipients"), { key, json: {} })
    expect(counted.body).toEqual({ recipients: 2 })
    const empty = await call(server, "POST", at("duplicate"), {
      key,
      body: "",
      headers: { "content-type": "application/json" }
    })
    expect(empty.status, empty.text).toBe(201)
    const noBody = await call(server, "POST", at("send"), { key })
    expect(noBody.status, noBody.text).toBe(200)
    const cancelled = await call(server, "POST", at("cancel"), { key, json: {} })
    expect(cancelled.body.status).toBe("cancelled")
  })

  it("the plan's monthly limit stops a campaign midway as failed, and retry after an upgrade sends the rest", async () => {
    const { key, organization, tag } = await audience(3)
    const id = OrganizationId.make(organization.id)
    await server.run(Effect.flatMap(EmailUsage, (usage) => usage.reserve(id, usageMonth(new Date()), 9_998, null)))
    const campaign = (await draft(key, { audience: { tag_ids: [tag.id] } })).body
    await action(key, campaign.id, "send")
    await takeAudiences()
    expect(await deliver(2)).toBe(3)
    const stopped = await call(server, "GET", `${path}/${campaign.id}`, { key })
    expect(stopped.body.status).toBe("failed")
    expect(stopped.body.failure_reason).toContain("monthly email limit (10000)")
    expect(stopped.body.stats).toMatchObject({ sent: 2, failed: 1 })
    expectProblem(await action(key, campaign.id, "retry"), "limit_exceeded", `${path}/${campaign.id}/retry`)

    await server.run(Effect.gen(function*() {
      const organizations = yield* OrganizationRepository
      const found = Option.getOrThrow(yield* organizations.findById(id))
      yield* organizations.update(new Organization({ ...found, tier: "pro" }))
    }))
    // Made behind the API's back, the upgrade is seen once its cached principals have expired.
    server.advanceClock(PRINCIPAL_CACHE_TTL_MS)
    const retried = await action(key, campaign.id, "retry")
    expect(retried.status, retried.text).toBe(200)
    expect(retried.body.status).toBe("sending")
    expect(await deliver()).toBe(1)
    const done = await call(server, "GET", `${path}/${campaign.id}`, { key })
    expect(done.body).toMatchObject({ status: "sent", failure_reason: null })
    expect(done.body.stats).toMatchObject({ sent: 3, failed: 0 })
  })

  it("single sends go before the batches of a large campaign, and campaigns take turns", async () => {
    const big = await audience(6)
    const small = await audience(2)
    const bigCampaign = (await draft(big.key, { audience: { tag_ids: [big.tag.id] } })).body
    const smallCampaign = (await draft(small.key, { audience: { tag_ids: [small.tag.id] } })).body
    await action(big.key, bigCampaign.id, "send")
    await action(small.key, smallCampaign.id, "send")
    await takeAudiences()
    const receipt = await call(server, "POST", "/api/v1/emails/send", {
      key: small.key,
      json: { to: small.readers[0].email, kind: "transactional", subject: "Your receipt", text: "Thanks" }
    })
    expect(receipt.status, receipt.text).toBe(202)
    const before = server.emails().length
    // One batch of two: the receipt, though the campaigns were queued first.
    expect(await deliver(2, 1)).toBe(1)
    expect(server.emails().slice(before)[0]).toContain("Subject: Your receipt")
    // Then the campaigns in turn: the small one is not held up behind all of the large one.
    expect(await deliver(2, 2)).toBe(4)
    const smallDone = (await call(server, "GET", `${path}/${smallCampaign.id}`, { key: small.key })).body
    const bigSoFar = (await call(server, "GET", `${path}/${bigCampaign.id}`, { key: big.key })).body
    expect(smallDone.stats.sent).toBe(2)
    expect(bigSoFar.stats.sent).toBe(2)
    await deliver()
  })

  it("a test key's campaign is rendered and recorded sandboxed, never handed to the mailer", async () => {
    const { organization, readers, tag } = await audience(2)
    const testKey = await server.createApiKey(organization, ["*"], "test")
    const campaign = (await draft(testKey, { audience: { tag_ids: [tag.id] } })).body
    expect((await action(testKey, campaign.id, "send")).body.sandboxed).toBe(true)
    await work()
    const done = await call(server, "GET", `${path}/${campaign.id}`, { key: testKey })
    expect(done.body).toMatchObject({ status: "sent", stats: { sandboxed: 2, sent: 0 } })
    for (const reader of readers) expect(printedTo(reader.email)).toHaveLength(0)
  })

  it("need campaigns:read to look and campaigns:write to change", async () => {
    const { organization, key } = await audience(0)
    const campaign = (await draft(key, {})).body
    const reader = await server.createApiKey(organization, ["campaigns:read"])
    expect((await call(server, "GET", `${path}/${campaign.id}`, { key: reader })).status).toBe(200)
    const refused = await action(reader, campaign.id, "send")
    expectProblem(refused, "forbidden", `${path}/${campaign.id}/send`)
    expect(refused.body.detail).toContain("campaigns:write")
    const none = await server.createApiKey(organization, ["subscribers:read"])
    expectProblem(await call(server, "GET", path, { key: none }), "forbidden", path)
  })
})
