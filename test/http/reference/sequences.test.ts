/**
 * /api/v1/sequences: series of steps fed from the recorded events and the API. The test server
 * runs no worker, so `work` does what the worker's fan-out, sequence and email jobs do.
 */
import { SignUps } from "@roster/application"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../../support/http-server.js"
import { deliverDue, runSequences } from "../../support/worker-steps.js"
import { createSubscriber, createTag, expectInvalid, expectProblem, uuidPattern } from "../helpers.js"

let server: TestHttpServer
beforeAll(async () => {
  server = await startHttpServer({ adapters: UnlimitedRateLimiterLive })
})
afterAll(() => server.close())

const path = "/api/v1/sequences"

const work = () => server.run(Effect.zipRight(runSequences, deliverDue()))
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const printedTo = (address: string) => server.emails().filter((email) => email.includes(`To: ${address}\n`))

const template = async (key: string, subject: string) => {
  const answer = await call(server, "POST", "/api/v1/templates", { key, json: { name: subject, subject, text: `${subject} body` } })
  expect(answer.status, answer.text).toBe(201)
  return answer.body.id as string
}

const create = async (key: string, json: Record<string, unknown>) => {
  const answer = await call(server, "POST", path, { key, json })
  expect(answer.status, answer.text).toBe(201)
  return answer.body
}

const activate = async (key: string, id: string) => {
  const answer = await call(server, "POST", `${path}/${id}/activate`, { key })
  expect(answer.status, answer.text).toBe(200)
  return answer.body
}

const enrollmentOf = async (key: string, id: string, subscriberId: string) => {
  const list = await call(server, "GET", `${path}/${id}/enrollments?limit=100`, { key })
  expect(list.status, list.text).toBe(200)
  return (list.body.items as Array<Record<string, unknown>>).filter((e) => e.subscriber_id === subscriberId)
}

describe("sequences", () => {
  it("take a new subscriber through a welcome series: an email, a wait, a branch on the open, a tag, the end", async () => {
    const { key } = await server.seedOrganization({ environment: "live" })
    const welcome = await template(key, "Welcome")
    const tips = await template(key, "Tips")
    const reminder = await template(key, "Reminder")
    const onboarded = await createTag(server, key)
    const sequence = await create(key, {
      name: "Welcome series",
      entry: { event: "subscriber.created" },
      steps: [
        { name: "welcome", send_email: { template_id: welcome } },
        { name: "pause", wait: "PT1S" },
        { name: "opened", branch: { if: { opened_previous_email: true }, go_to: "tips", else_go_to: "reminder" } },
        { name: "reminder", send_email: { template_id: reminder } },
        { name: "tips", send_email: { template_id: tips } },
        { name: "tagged", add_tag: { tag_id: onboarded.id } },
        { name: "done", end: true }
      ]
    })
    expect(sequence).toMatchObject({
      name: "Welcome series",
      status: "draft",
      version: 1,
      entry: { event: "subscriber.created" },
      goal_tag_id: null,
      re_entry: "once",
      time_zone: "UTC"
    })
    expect(sequence.id).toMatch(uuidPattern)
    expect(sequence.steps[1]).toEqual({ name: "pause", wait: "PT1S" })

    // A draft enrolls nobody.
    const early = await createSubscriber(server, key)
    await work()
    expect(await enrollmentOf(key, sequence.id, early.id)).toEqual([])

    expect((await activate(key, sequence.id)).status).toBe("active")
    const reader = await createSubscriber(server, key)
    await work()
    const [enrolled] = await enrollmentOf(key, sequence.id, reader.id)
    expect(enrolled).toMatchObject({ state: "active", current_step: "pause", current_step_index: 1, waiting: true, version: 1 })
    expect(Date.parse(enrolled!.next_run_at as string)).toBeGreaterThan(Date.now() - 1_000)
    expect(printedTo(reader.email).map((e) => /Subject: (.*)/.exec(e)?.[1])).toEqual(["Welcome"])

    // Waiting: nothing moves until the second is over.
    await work()
    expect(printedTo(reader.email)).toHaveLength(1)
    await sleep(1_100)
    await work()
    await work()
    // Not opened: the reminder, then the tips, the tag and the end.
    expect(printedTo(reader.email).map((e) => /Subject: (.*)/.exec(e)?.[1])).toEqual(["Welcome", "Reminder", "Tips"])
    const [finished] = await enrollmentOf(key, sequence.id, reader.id)
    expect(finished).toMatchObject({ state: "completed", current_step: "done", next_run_at: null, exit_reason: null })
    const got = await call(server, "GET", `/api/v1/subscribers/${reader.id}`, { key })
    expect((got.body.tags as Array<{ id: string }>).map((t) => t.id)).toContain(onboarded.id)

    const figures = await call(server, "GET", `${path}/${sequence.id}/figures`, { key })
    expect(figures.status, figures.text).toBe(200)
    expect(figures.body.steps).toEqual([
      { step: "welcome", entered: 1, completed: 1, exited: 0, emails_sent: 1, opened: 0, clicked: 0 },
      { step: "pause", entered: 1, completed: 1, exited: 0, emails_sent: 0, opened: 0, clicked: 0 },
      { step: "opened", entered: 1, completed: 1, exited: 0, emails_sent: 0, opened: 0, clicked: 0 },
      { step: "reminder", entered: 1, completed: 1, exited: 0, emails_sent: 1, opened: 0, clicked: 0 },
      { step: "tips", entered: 1, completed: 1, exited: 0, emails_sent: 1, opened: 0, clicked: 0 },
      { step: "tagged", entered: 1, completed: 1, exited: 0, emails_sent: 0, opened: 0, clicked: 0 },
      { step: "done", entered: 1, completed: 1, exited: 0, emails_sent: 0, opened: 0, clicked: 0 }
    ])
  })

  it("enter a subscriber when a change makes a segment match them, and refuse a segment or form of nobody", async () => {
    const { key } = await server.seedOrganization({ environment: "live" })
    const hello = await template(key, "Hello pro")
    const segment = await call(server, "POST", "/api/v1/segments", {
      key,
      json: { name: "Pro", filter: { field: "metadata.plan", op: "eq", value: "pro" } }
    })
    expect(segment.status, segment.text).toBe(201)
    const steps = [{ send_email: { template_id: hello } }]
    expectInvalid(
      await call(server, "POST", path, { key, json: { name: "S", entry: { event: "segment.entered", segment_id: crypto.randomUUID() }, steps } }),
      path,
      ["entry.segment_id"]
    )
    expectInvalid(
      await call(server, "POST", path, { key, json: { name: "F", entry: { event: "subscriber.confirmed", form_id: crypto.randomUUID() }, steps } }),
      path,
      ["entry.form_id"]
    )
    const sequence = await create(key, { name: "Pro welcome", entry: { event: "segment.entered", segment_id: segment.body.id }, steps })
    await activate(key, sequence.id)
    const reader = await createSubscriber(server, key, { metadata: { plan: "free" } })
    await work()
    expect(await enrollmentOf(key, sequence.id, reader.id)).toEqual([])
    const upgraded = await call(server, "PUT", `/api/v1/subscribers/${reader.id}`, { key, json: { metadata: { plan: "pro" } } })
    expect(upgraded.status, upgraded.text).toBe(200)
    await work()
    expect((await enrollmentOf(key, sequence.id, reader.id))[0]).toMatchObject({ state: "completed" })
    expect(printedTo(reader.email).map((e) => /Subject: (.*)/.exec(e)?.[1])).toEqual(["Hello pro"])
    // Once: a later change that still matches enters them no more.
    await call(server, "PUT", `/api/v1/subscribers/${reader.id}`, { key, json: { metadata: { plan: "pro", seats: 2 } } })
    await work()
    expect(await enrollmentOf(key, sequence.id, reader.id)).toHaveLength(1)
    // The sequence's entry keeps its segment from being deleted.
    const kept = await call(server, "DELETE", `/api/v1/segments/${segment.body.id}`, { key })
    expectProblem(kept, "conflict", `/api/v1/segments/${segment.body.id}`)
    expect(kept.body.detail).toContain(`the entry of sequence ${sequence.id}`)
    expect((await call(server, "DELETE", `${path}/${sequence.id}`, { key })).status).toBe(204)
    expect((await call(server, "DELETE", `/api/v1/segments/${segment.body.id}`, { key })).status).toBe(204)
  })

  it("enter a subscriber who confirms a sign-up through a form: into the sequences of that form and of any form", async () => {
    const { key } = await server.seedOrganization({ environment: "live" })
    const hello = await template(key, "Glad you confirmed")
    const steps = [{ send_email: { template_id: hello } }]
    const form = async (name: string) => {
      const made = await call(server, "POST", "/api/v1/forms", { key, json: { name } })
      expect(made.status, made.text).toBe(201)
      return made.body.id as string
    }
    const [weekly, events] = [await form("Weekly"), await form("Events")]
    const ofWeekly = await create(key, { name: "Weekly welcome", entry: { event: "subscriber.confirmed", form_id: weekly }, steps })
    const ofEvents = await create(key, { name: "Events welcome", entry: { event: "subscriber.confirmed", form_id: events }, steps })
    const ofAny = await create(key, { name: "Any welcome", entry: { event: "subscriber.confirmed" }, steps })
    for (const sequence of [ofWeekly, ofEvents, ofAny]) await activate(key, sequence.id)

    // Signed up on the form's page, the confirmation mailed, its link's button pressed.
    const email = `confirmed-${crypto.randomUUID()}@example.com`
    const page = await fetch(`${server.baseUrl}/f/${weekly}`).then((r) => r.text())
    const shown = /name="shown" value="([^"]+)"/.exec(page)?.[1]
    expect(shown).toBeDefined()
    server.advanceClock("3 seconds")
    const signedUp = await fetch(`${server.baseUrl}/f/${weekly}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "user-agent": "Sequences test" },
      body: new URLSearchParams({ email, shown: shown!, website: "" }).toString()
    })
    expect(signedUp.status).toBe(200)
    await server.run(Effect.flatMap(SignUps, (signUps) => signUps.sendDueConfirmations(100)))
    const mail = printedTo(email).at(-1) ?? ""
    const token = /\/f\/confirm\?token=([^\s"<&]+)/.exec(mail)?.[1]
    expect(token, mail).toBeDefined()
    const subscriberWith = async (address: string) => {
      const found = await call(server, "GET", `/api/v1/subscribers?search=${encodeURIComponent(address)}`, { key })
      expect(found.status, found.text).toBe(200)
      return ((found.body.data ?? found.body.items) as Array<{ id: string; status: string }>)[0]
    }
    // Not yet confirmed: nobody enters.
    await work()
    const pending = await subscriberWith(email)
    if (pending !== undefined) expect(await enrollmentOf(key, ofAny.id, pending.id)).toEqual([])
    const confirmed = await fetch(`${server.baseUrl}/f/confirm?token=${token}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: ""
    })
    expect(confirmed.status).toBe(200)
    await work()
    const reader = (await subscriberWith(email))!
    expect((await enrollmentOf(key, ofWeekly.id, reader.id))[0]).toMatchObject({ state: "completed" })
    expect((await enrollmentOf(key, ofAny.id, reader.id))[0]).toMatchObject({ state: "completed" })
    expect(await enrollmentOf(key, ofEvents.id, reader.id)).toEqual([])
    expect(printedTo(email).filter((e) => e.includes("Subject: Glad you confirmed"))).toHaveLength(2)
  })

  it("let an unsubscribe take effect before a step that is already due, and a goal tag end it early", async () => {
    const { key } = await server.seedOrganization({ environment: "live" })
    const first = await template(key, "First")
    const second = await template(key, "Second")
    const goal = await createTag(server, key)
    const sequence = await create(key, {
      name: "Drip",
      entry: { event: "api" },
      goal_tag_id: goal.id,
      steps: [{ send_email: { template_id: first } }, { wait: "PT1S" }, { send_email: { template_id: second } }]
    })
    await activate(key, sequence.id)
    const leaving = await createSubscriber(server, key)
    const reaching = await createSubscriber(server, key)
    for (const s of [leaving, reaching]) {
      const enrolled = await call(server, "POST", `${path}/${sequence.id}/enrollments`, { key, json: { subscriber_id: s.id } })
      expect(enrolled.status, enrolled.text).toBe(201)
      expect(enrolled.body).toMatchObject({ subscriber_id: s.id, state: "active", current_step: "step_1", sandboxed: false })
    }
    await work()
    await sleep(1_100)
    // Due now; then one unsubscribes and the other reaches the goal before the worker comes.
    const unsubscribed = await call(server, "PUT", `/api/v1/subscribers/${leaving.id}`, { key, json: { status: "unsubscribed" } })
    expect(unsubscribed.status, unsubscribed.text).toBe(200)
    const tagged = await call(server, "POST", `/api/v1/subscribers/${reaching.id}/tags`, { key, json: { tag_ids: [goal.id] } })
    expect(tagged.status, tagged.text).toBeLessThan(300)
    await work()
    expect(printedTo(leaving.email)).toHaveLength(1)
    expect(printedTo(reaching.email)).toHaveLength(1)
    expect((await enrollmentOf(key, sequence.id, leaving.id))[0]).toMatchObject({ state: "exited", exit_reason: "unsubscribed", current_step: "step_2" })
    expect((await enrollmentOf(key, sequence.id, reaching.id))[0]).toMatchObject({ state: "exited", exit_reason: "goal" })
    const figures = await call(server, "GET", `${path}/${sequence.id}/figures`, { key })
    expect(figures.body.steps[1]).toMatchObject({ step: "step_2", entered: 2, completed: 0, exited: 2 })
  })

  it("enroll through the API once, remove, refuse a draft and another organization's subscriber", async () => {
    const { key } = await server.seedOrganization({ environment: "live" })
    const other = await server.seedOrganization({ environment: "live" })
    const first = await template(key, "Only")
    const sequence = await create(key, { name: "Once", entry: { event: "api" }, steps: [{ send_email: { template_id: first } }, { wait: "P1D" }] })
    const reader = await createSubscriber(server, key)
    const enroll = (subscriberId: string, on = key) =>
      call(server, "POST", `${path}/${sequence.id}/enrollments`, { key: on, json: { subscriber_id: subscriberId } })
    expectProblem(await enroll(reader.id), "conflict", `${path}/${sequence.id}/enrollments`)
    await activate(key, sequence.id)
    expect((await enroll(reader.id)).status).toBe(201)
    expectInvalid(await enroll(reader.id), `${path}/${sequence.id}/enrollments`, ["subscriber_id"])
    const stranger = await createSubscriber(server, other.key)
    expect((await enroll(stranger.id)).status).toBe(403)
    expectProblem(await enroll(reader.id, other.key), "not_found", `${path}/${sequence.id}/enrollments`)

    const removed = await call(server, "DELETE", `${path}/${sequence.id}/enrollments/${reader.id}`, { key })
    expect(removed.status, removed.text).toBe(200)
    expect(removed.body).toMatchObject({ state: "exited", exit_reason: "removed", next_run_at: null })
    expectProblem(await call(server, "DELETE", `${path}/${sequence.id}/enrollments/${reader.id}`, { key }), "not_found", `${path}/${sequence.id}/enrollments/${reader.id}`)
    // Once means once.
    expectInvalid(await enroll(reader.id), `${path}/${sequence.id}/enrollments`, ["subscriber_id"])
  })

  it("send sandboxed email for an enrollment made with a test key", async () => {
    const { key } = await server.seedOrganization({ environment: "test" })
    const first = await template(key, "Sandboxed")
    const sequence = await create(key, { name: "Test", entry: { event: "api" }, steps: [{ send_email: { template_id: first } }] })
    await activate(key, sequence.id)
    const reader = await createSubscriber(server, key)
    const enrolled = await call(server, "POST", `${path}/${sequence.id}/enrollments`, { key, json: { subscriber_id: reader.id } })
    expect(enrolled.body.sandboxed).toBe(true)
    await work()
    const emails = await call(server, "GET", `/api/v1/emails?subscriber_id=${reader.id}`, { key })
    expect(emails.body.items.map((e: { status: string }) => e.status)).toEqual(["sandboxed"])
    expect(printedTo(reader.email)).toHaveLength(0)
  })

  it("make a new version when an active sequence's steps change; those in flight finish theirs", async () => {
    const { key } = await server.seedOrganization({ environment: "live" })
    const one = await template(key, "One")
    const two = await template(key, "Two")
    const sequence = await create(key, { name: "Versions", entry: { event: "api" }, steps: [{ wait: "PT1S" }, { send_email: { template_id: one } }] })
    // A draft's steps are replaced in place.
    const draft = await call(server, "PUT", `${path}/${sequence.id}`, { key, json: { steps: [{ wait: "PT1S" }, { send_email: { template_id: one } }, { end: true }] } })
    expect(draft.body.version).toBe(1)
    await activate(key, sequence.id)
    const before = await createSubscriber(server, key)
    expect((await call(server, "POST", `${path}/${sequence.id}/enrollments`, { key, json: { subscriber_id: before.id } })).status).toBe(201)
    const changed = await call(server, "PUT", `${path}/${sequence.id}`, { key, json: { steps: [{ wait: "PT1S" }, { send_email: { template_id: two } }] } })
    expect(changed.status, changed.text).toBe(200)
    expect(changed.body.version).toBe(2)
    // A rename alone keeps the version.
    expect((await call(server, "PUT", `${path}/${sequence.id}`, { key, json: { name: "Renamed" } })).body.version).toBe(2)
    const after = await createSubscriber(server, key)
    expect((await call(server, "POST", `${path}/${sequence.id}/enrollments`, { key, json: { subscriber_id: after.id } })).body.version).toBe(2)
    await work()
    await sleep(1_100)
    await work()
    expect(printedTo(before.email).map((e) => /Subject: (.*)/.exec(e)?.[1])).toEqual(["One"])
    expect(printedTo(after.email).map((e) => /Subject: (.*)/.exec(e)?.[1])).toEqual(["Two"])
  })

  it("refuse bad steps naming their path, unknown fields, and what the organization does not have", async () => {
    const { key } = await server.seedOrganization({ environment: "live" })
    const first = await template(key, "Valid")
    const base = { name: "Bad", entry: { event: "api" } }
    expectInvalid(
      await call(server, "POST", path, { key, json: { ...base, steps: [{ send_email: { template_id: first } }, { end: true }, { wait: "P1M" }] } }),
      path,
      ["steps[2].wait"]
    )
    expectInvalid(
      await call(server, "POST", path, { key, json: { ...base, steps: [{ name: "a", branch: { if: { has_tag: first }, go_to: "zzz" } }] } }),
      path,
      ["steps[0].branch.go_to"]
    )
    expectInvalid(
      await call(server, "POST", path, { key, json: { ...base, steps: [{ name: "a", add_tag: { tag_id: first } }, { branch: { if: { opened_previous_email: true }, go_to: "a" } }] } }),
      path,
      ["steps[1].branch.go_to"]
    )
    expectInvalid(await call(server, "POST", path, { key, json: { ...base, steps: [{ end: true }], color: "red" } }), path, ["color"])
    expectInvalid(await call(server, "POST", path, { key, json: { ...base, entry: { event: "soon" }, steps: [{ end: true }] } }), path, ["entry.event"])
    expectInvalid(await call(server, "POST", path, { key, json: { ...base, steps: [{ end: true }], time_zone: "Mars/Base" } }), path, ["time_zone"])
    // A template or tag of nobody here.
    expectInvalid(await call(server, "POST", path, { key, json: { ...base, steps: [{ send_email: { template_id: crypto.randomUUID() } }] } }), path, ["steps"])
    expectInvalid(await call(server, "POST", path, { key, json: { ...base, goal_tag_id: crypto.randomUUID(), steps: [{ end: true }] } }), path, ["goal_tag_id"])
    expectProblem(await call(server, "GET", `${path}/${crypto.randomUUID()}`, { key }), "not_found", expect.any(String) as unknown as string)
  })

  it("list, pause, delete, and need the sequences scopes", async () => {
    const { key } = await server.seedOrganization({ environment: "live" })
    const readOnly = await server.seedOrganization({ environment: "live", scopes: ["sequences:read"] })
    const a = await create(key, { name: "A", entry: { event: "api" }, steps: [{ end: true }] })
    const b = await create(key, { name: "B", entry: { event: "api" }, steps: [{ end: true }] })
    const page = await call(server, "GET", `${path}?limit=1`, { key })
    expect(page.status, page.text).toBe(200)
    expect(page.body.items.map((s: { id: string }) => s.id)).toEqual([a.id])
    const next = await call(server, "GET", `${path}?limit=1&cursor=${encodeURIComponent(page.body.next_cursor)}`, { key })
    expect(next.body.items.map((s: { id: string }) => s.id)).toEqual([b.id])
    await activate(key, a.id)
    const paused = await call(server, "POST", `${path}/${a.id}/pause`, { key })
    expect(paused.body.status).toBe("paused")
    expectProblem(await call(server, "POST", path, { key: readOnly.key, json: { name: "X", entry: { event: "api" }, steps: [{ end: true }] } }), "forbidden", path)
    expect((await call(server, "GET", path, { key: readOnly.key })).status).toBe(200)
    expect((await call(server, "DELETE", `${path}/${a.id}`, { key })).status).toBe(204)
    expectProblem(await call(server, "GET", `${path}/${a.id}`, { key }), "not_found", `${path}/${a.id}`)
  })
})
