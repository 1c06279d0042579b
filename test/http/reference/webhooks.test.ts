/**
 * /api/v1/webhooks: endpoints of other systems that hear of the organization's events. Signing
 * secrets are shown only when made or regenerated; the target guard refuses loopback, private and
 * metadata URLs unless the operator allows them; test events and deliveries reach real local
 * receivers signed the Standard Webhooks way. The test server runs no worker, so these tests move
 * deliveries with the dispatch use case themselves.
 */
import { WebhookDispatch } from "@roster/application"
import { eventTypeDescriptions } from "@roster/domain"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { Webhook } from "standardwebhooks"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../../support/http-server.js"
import {
  closedPortUrl,
  createSubscriber,
  expectInvalid,
  expectProblem,
  freshEmail,
  isoInstantPattern,
  type Receiver,
  startReceiver,
  uuidPattern
} from "../helpers.js"

/** Private targets refused, as in production. */
let server: TestHttpServer
/** `WEBHOOK_ALLOW_PRIVATE_TARGETS=true`: webhooks reach the receivers the tests start on 127.0.0.1. */
let open: TestHttpServer
const receivers: Array<Receiver> = []

beforeAll(async () => {
  // Sign-ins and many requests per organization: the rate limits are tested elsewhere.
  server = await startHttpServer({ adapters: UnlimitedRateLimiterLive })
  open = await startHttpServer({ adapters: UnlimitedRateLimiterLive, config: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" } })
})
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()))
  await Promise.all([server.close(), open.close()])
})

const path = "/api/v1/webhooks"
const nothing = "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"
/** A public address, judged without a name to resolve; nothing is ever sent to it. */
const publicUrl = "https://93.184.215.14/hooks/roster"

const receiver = async (status?: Parameters<typeof startReceiver>[0]) => {
  const started = await startReceiver(status)
  receivers.push(started)
  return started
}

const createWebhook = async (on: TestHttpServer, key: string, json: Record<string, unknown> = {}) => {
  const answer = await call(on, "POST", path, { key, json: { url: publicUrl, ...json } })
  expect(answer.status, answer.text).toBe(201)
  return answer.body
}

/** What the worker does: every recorded event to a delivery per endpoint that hears it, then every due delivery sent. */
const dispatch = () =>
  open.run(Effect.gen(function*() {
    const webhooks = yield* WebhookDispatch
    while ((yield* webhooks.fanOut(200)).events > 0) {
      // until every recorded event is taken
    }
    yield* webhooks.deliverDue(200, 30_000)
  }))

const endpointFields = ["created_at", "description", "disabled_reason", "events", "id", "status", "updated_at", "url"]
const everyKind = Object.keys(eventTypeDescriptions)

describe("POST /api/v1/webhooks", () => {
  it("answers 201 with the endpoint and its whsec_ signing secret, which no read shows again", async () => {
    const { key } = await server.seedOrganization()
    const answer = await call(server, "POST", path, {
      key,
      json: { url: `  ${publicUrl}  `, events: ["subscriber.created", "tag.subscribed"], description: "CRM sync" }
    })
    expect(answer.status, answer.text).toBe(201)
    expect(answer.headers.get("content-type")).toMatch(/^application\/json/)
    const secret: string = answer.body.signing_secret
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/)
    expect(Buffer.from(secret.slice("whsec_".length), "base64")).toHaveLength(32)
    expect(answer.body).toEqual({
      id: expect.stringMatching(uuidPattern),
      url: publicUrl,
      events: ["subscriber.created", "tag.subscribed"],
      description: "CRM sync",
      status: "active",
      disabled_reason: null,
      signing_secret: secret,
      created_at: expect.stringMatching(isoInstantPattern),
      updated_at: answer.body.created_at
    })

    const got = await call(server, "GET", `${path}/${answer.body.id}`, { key })
    expect(got.status).toBe(200)
    const { signing_secret: _secret, ...shown } = answer.body
    expect(got.body).toEqual(shown)
    const listed = await call(server, "GET", path, { key })
    expect(listed.body).toEqual({ items: [shown], total: 1 })
    for (const read of [got, listed]) expect(read.text).not.toContain(secret)
  })

  it("listens to every event kind when `events` is left out, and takes a null description", async () => {
    const { key } = await server.seedOrganization()
    const created = await createWebhook(server, key, { description: null })
    expect(created).toMatchObject({ events: everyKind, description: null })
  })

  const refused: ReadonlyArray<readonly [string, unknown, ReadonlyArray<string>]> = [
    ["no url", { events: ["subscriber.created"] }, ["url"]],
    ["a url that is not a URL", { url: "not a url" }, ["url"]],
    ["an ftp url", { url: "ftp://example.com/hooks" }, ["url"]],
    ["a url with a fragment", { url: "https://93.184.215.14/hooks#x" }, ["url"]],
    ["a url as a number", { url: 42 }, ["url"]],
    ["an unknown event kind", { url: publicUrl, events: ["subscriber.exploded"] }, ["events[0]"]],
    ["an unknown kind after a known one", { url: publicUrl, events: ["tag.subscribed", "tag.renamed"] }, ["events[1]"]],
    ["an empty list of events", { url: publicUrl, events: [] }, ["events"]],
    ["an event kind twice", { url: publicUrl, events: ["tag.subscribed", "tag.subscribed"] }, ["events"]],
    ["events as a string", { url: publicUrl, events: "subscriber.created" }, ["events"]],
    ["the test kind, which nobody listens to", { url: publicUrl, events: ["webhook.test"] }, ["events[0]"]],
    ["a description of 501 characters", { url: publicUrl, description: "x".repeat(501) }, ["description"]],
    ["a field it may not set", { url: publicUrl, signing_secret: "whsec_AAAA" }, ["signing_secret"]],
    ["an unknown field", { url: publicUrl, organization_id: randomUUID() }, ["organization_id"]],
    ["a status on create", { url: publicUrl, status: "disabled" }, ["status"]]
  ]
  for (const [label, json, fields] of refused) {
    it(`answers 400 validation_error for ${label}`, async () => {
      const { key } = await server.seedOrganization()
      expectInvalid(await call(server, "POST", path, { key, json }), path, fields)
      expect((await call(server, "GET", path, { key })).body.total).toBe(0)
    })
  }

  const privateTargets = [
    "http://127.0.0.1:8080/hooks",
    "http://169.254.169.254/latest/meta-data/",
    "http://[::ffff:127.0.0.1]/hooks",
    "http://[::1]/hooks",
    "http://10.0.0.7/hooks",
    "http://2130706433/hooks",
    "http://localhost:3000/hooks",
    "http://metadata.google.internal/"
  ]
  for (const url of privateTargets) {
    it(`refuses ${url} with 400 on url unless private targets are allowed`, async () => {
      const { key } = await server.seedOrganization()
      const answer = await call(server, "POST", path, { key, json: { url } })
      expectInvalid(answer, path, ["url"])
      expect(answer.body.detail).toContain("WEBHOOK_ALLOW_PRIVATE_TARGETS")
      expect((await call(server, "GET", path, { key })).body.total).toBe(0)
    })
  }

  it("takes a loopback URL on a server that allows private targets", async () => {
    const { key } = await open.seedOrganization()
    expect((await createWebhook(open, key, { url: "http://127.0.0.1:9/hooks" })).url).toBe("http://127.0.0.1:9/hooks")
  })
})

describe("GET, PUT and DELETE /api/v1/webhooks/{webhook_id}", () => {
  it("updates only the fields given, and PUT can pause and resume the endpoint", async () => {
    const { key } = await server.seedOrganization()
    const created = await createWebhook(server, key, { description: "first" })
    const itemPath = `${path}/${created.id}`

    const changed = await call(server, "PUT", itemPath, { key, json: { events: ["subscriber.deleted"] } })
    expect(changed.status, changed.text).toBe(200)
    expect(Object.keys(changed.body).sort()).toEqual(endpointFields)
    expect(changed.body).toMatchObject({ url: publicUrl, events: ["subscriber.deleted"], description: "first", status: "active" })

    const moved = await call(server, "PUT", itemPath, {
      key,
      json: { url: "https://93.184.215.15/other", description: null }
    })
    expect(moved.body).toMatchObject({ url: "https://93.184.215.15/other", events: ["subscriber.deleted"], description: null })

    const paused = await call(server, "PUT", itemPath, { key, json: { status: "disabled" } })
    expect(paused.body).toMatchObject({ status: "disabled", disabled_reason: "by_user" })
    const resumed = await call(server, "PUT", itemPath, { key, json: { status: "active" } })
    expect(resumed.body).toMatchObject({ status: "active", disabled_reason: null })
    expect((await call(server, "GET", itemPath, { key })).body).toEqual(resumed.body)
    expect(resumed.text).not.toContain(created.signing_secret)
  })

  it("refuses a private URL, a bad status, an empty event list and unknown fields with 400, changing nothing", async () => {
    const { key } = await server.seedOrganization()
    const created = await createWebhook(server, key)
    const itemPath = `${path}/${created.id}`
    const cases: ReadonlyArray<readonly [unknown, ReadonlyArray<string>]> = [
      [{ url: "http://127.0.0.1:3000/hooks" }, ["url"]],
      [{ url: "http://[::ffff:127.0.0.1]/" }, ["url"]],
      [{ url: "http://169.254.169.254/" }, ["url"]],
      [{ status: "paused" }, ["status"]],
      [{ events: [] }, ["events"]],
      [{ events: ["nope"] }, ["events[0]"]],
      [{ signing_secret: "whsec_AAAA" }, ["signing_secret"]],
      [{ disabled_reason: "gone" }, ["disabled_reason"]]
    ]
    for (const [json, fields] of cases) {
      expectInvalid(await call(server, "PUT", itemPath, { key, json }), itemPath, fields)
    }
    const { signing_secret: _secret, ...unchanged } = created
    expect((await call(server, "GET", itemPath, { key })).body).toEqual(unchanged)
  })

  it("deletes with 204; the endpoint is gone afterwards", async () => {
    const { key } = await server.seedOrganization()
    const created = await createWebhook(server, key)
    const itemPath = `${path}/${created.id}`
    const deleted = await call(server, "DELETE", itemPath, { key })
    expect(deleted.status).toBe(204)
    expect(deleted.text).toBe("")
    expectProblem(await call(server, "GET", itemPath, { key }), "not_found", itemPath)
    expectProblem(await call(server, "DELETE", itemPath, { key }), "not_found", itemPath)
    expect((await call(server, "GET", path, { key })).body).toEqual({ items: [], total: 0 })
  })

  it("answers 404 not_found for an id of no endpoint, on every route of an endpoint", async () => {
    const { key } = await server.seedOrganization()
    const itemPath = `${path}/${nothing}`
    const routes: ReadonlyArray<readonly [string, string, unknown]> = [
      ["GET", itemPath, undefined],
      ["PUT", itemPath, { description: "x" }],
      ["DELETE", itemPath, undefined],
      ["POST", `${itemPath}/test`, undefined],
      ["POST", `${itemPath}/regenerate-secret`, undefined],
      ["GET", `${itemPath}/deliveries`, undefined],
      ["GET", `${itemPath}/deliveries/${nothing}`, undefined],
      ["POST", `${itemPath}/deliveries/${nothing}/retry`, undefined],
      ["GET", `${itemPath}/stats`, undefined]
    ]
    for (const [method, route, json] of routes) {
      const answer = await call(server, method, route, { key, json })
      expectProblem(answer, "not_found", route)
      expect(answer.body.detail).toContain(nothing)
    }
  })

  it("answers 403 forbidden for another organization's endpoint, telling nothing of it and changing nothing", async () => {
    const { key: theirs } = await server.seedOrganization()
    const created = await createWebhook(server, theirs, { description: "their secret sync" })
    const { key } = await server.seedOrganization()
    const itemPath = `${path}/${created.id}`
    const routes: ReadonlyArray<readonly [string, string, unknown]> = [
      ["GET", itemPath, undefined],
      ["PUT", itemPath, { status: "disabled" }],
      ["DELETE", itemPath, undefined],
      ["POST", `${itemPath}/test`, undefined],
      ["POST", `${itemPath}/regenerate-secret`, undefined],
      ["GET", `${itemPath}/deliveries`, undefined],
      ["GET", `${itemPath}/deliveries/${nothing}`, undefined],
      ["POST", `${itemPath}/deliveries/${nothing}/retry`, undefined],
      ["GET", `${itemPath}/stats`, undefined]
    ]
    for (const [method, route, json] of routes) {
      const answer = await call(server, method, route, { key, json })
      expectProblem(answer, "forbidden", route)
      expect(answer.text).not.toContain("their secret sync")
      expect(answer.text).not.toContain(publicUrl)
    }
    const { signing_secret: _secret, ...unchanged } = created
    expect((await call(server, "GET", itemPath, { key: theirs })).body).toEqual(unchanged)
  })

  it("answers 400 on webhook_id for an id that is not a UUID", async () => {
    const { key } = await server.seedOrganization()
    expectInvalid(await call(server, "GET", `${path}/not-an-id`, { key }), `${path}/not-an-id`, ["webhook_id"])
    expectInvalid(await call(server, "GET", `${path}/stats`, { key }), `${path}/stats`, ["webhook_id"])
  })
})

describe("who may manage webhooks", () => {
  it("answers 403 to a key without webhooks:manage, on every route, and 401 without credentials", async () => {
    const { key: owner } = await server.seedOrganization()
    const created = await createWebhook(server, owner)
    const key = await server.createApiKey((await server.createOrganization()), ["subscribers:read", "tags:write"])
    const { key: sameOrganization } = await server.seedOrganization({ scopes: ["subscribers:write"] })
    const itemPath = `${path}/${created.id}`
    for (const caller of [key, sameOrganization]) {
      for (const [method, route, json] of [
        ["POST", path, { url: publicUrl }],
        ["GET", path, undefined],
        ["GET", `${path}/stats/global`, undefined]
      ] as const) {
        const answer = await call(server, method, route, { key: caller, json })
        expectProblem(answer, "forbidden", route)
        expect(answer.body.detail).toContain("webhooks:manage")
      }
    }
    expectProblem(await call(server, "GET", itemPath), "unauthorized", itemPath)
    expectProblem(await call(server, "GET", path), "unauthorized", path)
  })

  it("a key with only webhooks:manage manages them", async () => {
    const { key } = await server.seedOrganization({ scopes: ["webhooks:manage"] })
    const created = await createWebhook(server, key)
    expect((await call(server, "GET", `${path}/${created.id}`, { key })).status).toBe(200)
  })

  it("an owner's session manages them; a member's session is refused", async () => {
    const owner = await server.signIn()
    const organization = await server.createOrganizationAs(owner)
    const created = await call(server, "POST", path, { headers: owner.headers(organization.id), json: { url: publicUrl } })
    expect(created.status, created.text).toBe(201)
    const member = await server.signIn()
    await server.addMember(organization.id, member, "member")
    const answer = await call(server, "GET", path, { headers: member.headers(organization.id) })
    expectProblem(answer, "forbidden", path)
    expect(answer.body.detail).toContain("webhooks:manage")
  })
})

describe("GET /api/v1/webhooks/event-types and /stats/global are not endpoint ids", () => {
  it("lists the event kinds with their meaning, to any authenticated caller", async () => {
    const { key } = await server.seedOrganization({ scopes: ["tags:read"] })
    const answer = await call(server, "GET", `${path}/event-types`, { key })
    expect(answer.status, answer.text).toBe(200)
    expect(answer.body).toEqual({
      items: Object.entries(eventTypeDescriptions).map(([type, description]) => ({ type, description }))
    })
    expect(answer.body.items.map((item: { type: string }) => item.type)).toEqual([
      "subscriber.created",
      "subscriber.updated",
      "subscriber.deleted",
      "tag.subscribed",
      "tag.unsubscribed",
      "subscriber.note_added",
      "subscriber.confirmed",
      "form.list_full"
    ])
  })

  it("answers the global figures at /stats/global, even for an organization without endpoints", async () => {
    const { key } = await server.seedOrganization()
    const answer = await call(server, "GET", `${path}/stats/global`, { key })
    expect(answer.status, answer.text).toBe(200)
    expect(answer.body).toEqual({
      since: expect.stringMatching(isoInstantPattern),
      endpoints: { total: 0, active: 0, disabled: 0 },
      attempts: 0,
      succeeded: 0,
      failed: 0,
      success_rate: null,
      latency_ms: { p50: null, p95: null },
      last_success_at: null,
      last_failure_at: null,
      pending_deliveries: 0
    })
    const sevenDays = 7 * 24 * 3_600_000
    expect(Math.abs(Date.now() - sevenDays - Date.parse(answer.body.since))).toBeLessThan(60_000)
  })
})

describe("POST /api/v1/webhooks/{webhook_id}/test", () => {
  it("sends a signed test event to the receiver and reports its 200", async () => {
    const target = await receiver()
    const { key, organization } = await open.seedOrganization()
    const created = await createWebhook(open, key, { url: target.url, events: ["tag.subscribed"] })
    const answer = await call(open, "POST", `${path}/${created.id}/test`, { key })
    expect(answer.status, answer.text).toBe(200)
    expect(answer.body).toEqual({ success: true, status_code: 200, response_time_ms: expect.any(Number), error: null })
    expect(Number.isInteger(answer.body.response_time_ms)).toBe(true)
    expect(answer.body.response_time_ms).toBeGreaterThanOrEqual(0)

    expect(target.received).toHaveLength(1)
    const [got] = target.received
    expect(got!.method).toBe("POST")
    expect(got!.url).toBe("/hooks")
    expect(got!.headers["content-type"]).toMatch(/^application\/json/)
    expect(got!.headers["webhook-id"]).toEqual(expect.any(String))
    expect(got!.headers["webhook-timestamp"]).toMatch(/^\d+$/)
    expect(Math.abs(Number(got!.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(60)
    expect(got!.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/)
    const payload = new Webhook(created.signing_secret).verify(got!.body, got!.headers)
    expect(payload).toEqual({
      id: got!.headers["webhook-id"],
      type: "webhook.test",
      created_at: expect.stringMatching(isoInstantPattern),
      organization_id: organization.id,
      data: { webhook_id: created.id, message: expect.any(String) }
    })
    const other = (await createWebhook(open, key, { url: target.url })).signing_secret
    expect(() => new Webhook(other).verify(got!.body, got!.headers)).toThrow()
  })

  it("reports success false with the status when the receiver answers 500", async () => {
    const target = await receiver(() => 500)
    const { key } = await open.seedOrganization()
    const created = await createWebhook(open, key, { url: target.url })
    const answer = await call(open, "POST", `${path}/${created.id}/test`, { key })
    expect(answer.status, answer.text).toBe(200)
    expect(answer.body).toMatchObject({ success: false, status_code: 500 })
    expect(answer.body.error).toContain("500")
    expect(target.received).toHaveLength(1)
  })

  it("reports success false, status_code 0 and the error when nothing listens", async () => {
    const { key } = await open.seedOrganization()
    const created = await createWebhook(open, key, { url: await closedPortUrl() })
    const answer = await call(open, "POST", `${path}/${created.id}/test`, { key })
    expect(answer.status, answer.text).toBe(200)
    expect(answer.body).toEqual({
      success: false,
      status_code: 0,
      response_time_ms: expect.any(Number),
      error: expect.any(String)
    })
    expect(answer.body.error.length).toBeGreaterThan(0)
  })

  it("keeps the test in the deliveries list marked as a test, with its attempt; no worker sends it again", async () => {
    let status = 503
    const target = await receiver(() => status)
    const { key } = await open.seedOrganization()
    const created = await createWebhook(open, key, { url: target.url })
    const answer = await call(open, "POST", `${path}/${created.id}/test`, { key })
    expect(answer.body).toMatchObject({ success: false, status_code: 503 })
    const [sent] = target.received

    const deliveries = await call(open, "GET", `${path}/${created.id}/deliveries`, { key })
    expect(deliveries.status, deliveries.text).toBe(200)
    expect(deliveries.body).toEqual({
      items: [{
        id: expect.stringMatching(uuidPattern),
        webhook_id: created.id,
        event_id: sent!.headers["webhook-id"],
        event_type: "webhook.test",
        test: true,
        status: "failed",
        attempt_count: 1,
        next_attempt_at: null,
        created_at: expect.stringMatching(isoInstantPattern),
        updated_at: expect.stringMatching(isoInstantPattern),
        attempts: [{
          attempt: 1,
          attempted_at: expect.stringMatching(isoInstantPattern),
          status: "failed",
          response_status_code: 503,
          duration_ms: answer.body.response_time_ms,
          error: answer.body.error,
          next_attempt_at: null
        }]
      }],
      next_cursor: null
    })
    const [delivery] = deliveries.body.items
    expect(Math.floor(Date.parse(delivery.attempts[0].attempted_at) / 1000)).toBe(Number(sent!.headers["webhook-timestamp"]))

    // A worker never retries a test, and a failed test leaves the endpoint active.
    await dispatch()
    expect(target.received).toHaveLength(1)
    expect((await call(open, "GET", `${path}/${created.id}`, { key })).body).toMatchObject({ status: "active" })
    const one = await call(open, "GET", `${path}/${created.id}/deliveries/${delivery.id}`, { key })
    expect(one.body).toEqual(delivery)

    // Retrying a test sends the same message again at once and records its attempt.
    status = 200
    const retried = await call(open, "POST", `${path}/${created.id}/deliveries/${delivery.id}/retry`, { key })
    expect(retried.status, retried.text).toBe(202)
    expect(retried.body).toMatchObject({ id: delivery.id, test: true, status: "succeeded", attempt_count: 2, next_attempt_at: null })
    expect(retried.body.attempts.map((attempt: { status: string }) => attempt.status)).toEqual(["failed", "succeeded"])
    expect(target.received).toHaveLength(2)
    expect(target.received[1]!.headers["webhook-id"]).toBe(sent!.headers["webhook-id"])
    expect(target.received[1]!.body).toBe(sent!.body)
    expect(() => new Webhook(created.signing_secret).verify(target.received[1]!.body, target.received[1]!.headers)).not.toThrow()

    const succeeded = await call(open, "GET", `${path}/${created.id}/deliveries?status=succeeded`, { key })
    expect(succeeded.body.items.map((item: { id: string }) => item.id)).toEqual([delivery.id])
  })

  it("documents the test mark in the OpenAPI document as an optional boolean beside the event kind", async () => {
    const answer = await call(open, "GET", "/openapi.json")
    expect(answer.status).toBe(200)
    const schema = answer.body.components.schemas.WebhookDelivery
    expect(schema.properties.test).toMatchObject({ type: "boolean", description: expect.stringContaining("test message") })
    expect(schema.required).not.toContain("test")
    expect(JSON.stringify(schema.properties.event_type)).toContain("webhook.test")
  })

  it("lists an event's delivery beside the test, marked as no test", async () => {
    const target = await receiver()
    const { key } = await open.seedOrganization()
    const created = await createWebhook(open, key, { url: target.url, events: ["subscriber.created"] })
    await call(open, "POST", `${path}/${created.id}/test`, { key })
    await createSubscriber(open, key, { email: freshEmail() })
    await dispatch()
    const deliveries = await call(open, "GET", `${path}/${created.id}/deliveries`, { key })
    expect(deliveries.body.items.map((item: { event_type: string; test: boolean }) => [item.event_type, item.test]))
      .toEqual([["subscriber.created", false], ["webhook.test", true]])
  })
})

describe("POST /api/v1/webhooks/{webhook_id}/regenerate-secret", () => {
  it("answers a new secret; for 24 hours every message is signed with the new and the old", async () => {
    const target = await receiver()
    const { key } = await open.seedOrganization()
    const created = await createWebhook(open, key, { url: target.url })
    const answer = await call(open, "POST", `${path}/${created.id}/regenerate-secret`, { key })
    expect(answer.status, answer.text).toBe(200)
    const { signing_secret: oldSecret, ...fields } = created
    expect(answer.body).toEqual({
      ...fields,
      signing_secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+=*$/),
      previous_secret_expires_at: expect.stringMatching(isoInstantPattern),
      updated_at: expect.stringMatching(isoInstantPattern)
    })
    const newSecret: string = answer.body.signing_secret
    expect(newSecret).not.toBe(oldSecret)
    const grace = Date.parse(answer.body.previous_secret_expires_at) - Date.parse(answer.body.updated_at)
    expect(grace).toBe(24 * 3_600_000)

    const read = await call(open, "GET", `${path}/${created.id}`, { key })
    expect(read.text).not.toContain(newSecret)
    expect(read.body).not.toHaveProperty("previous_secret_expires_at")

    const tested = await call(open, "POST", `${path}/${created.id}/test`, { key })
    expect(tested.body.success).toBe(true)
    const got = target.received.at(-1)!
    const signatures = got.headers["webhook-signature"]!.split(" ")
    expect(signatures).toHaveLength(2)
    for (const signature of signatures) expect(signature).toMatch(/^v1,/)
    const verifies = (secret: string, signature: string) => {
      try {
        new Webhook(secret).verify(got.body, { ...got.headers, "webhook-signature": signature })
        return true
      } catch {
        return false
      }
    }
    // One signature is the new secret's, the other the old one's: receivers of either verify the message.
    const matrix = signatures.map((signature) => [verifies(newSecret, signature), verifies(oldSecret, signature)])
    expect(matrix).toEqual(expect.arrayContaining([[true, false], [false, true]]))
    expect(() => new Webhook(newSecret).verify(got.body, got.headers)).not.toThrow()
    expect(() => new Webhook(oldSecret).verify(got.body, got.headers)).not.toThrow()
  })
})

describe("deliveries and figures", () => {
  it("lists an endpoint's deliveries with their attempts, pages them, filters them, retries one and counts them", async () => {
    const ok = await receiver()
    const failing = await receiver(() => 500)
    const { key } = await open.seedOrganization()
    const good = await createWebhook(open, key, { url: ok.url, events: ["subscriber.created"] })
    const bad = await createWebhook(open, key, { url: failing.url, events: ["subscriber.created"] })
    const quiet = await createWebhook(open, key, { url: ok.url, events: ["subscriber.deleted"] })
    const subscribers = []
    for (let i = 0; i < 3; i++) subscribers.push(await createSubscriber(open, key, { email: freshEmail("hooked") }))
    await dispatch()

    // What the receiver got: one signed message per subscriber, each verifiable with the endpoint's secret.
    expect(ok.received).toHaveLength(3)
    const bodies = ok.received.map((got) => new Webhook(good.signing_secret).verify(got.body, got.headers)) as Array<{
      type: string
      data: { subscriber: { id: string } }
    }>
    expect(bodies.map((body) => body.type)).toEqual(["subscriber.created", "subscriber.created", "subscriber.created"])
    expect(bodies.map((body) => body.data.subscriber.id).sort()).toEqual(subscribers.map((s) => s.id).sort())

    const deliveriesPath = `${path}/${good.id}/deliveries`
    const all = await call(open, "GET", deliveriesPath, { key })
    expect(all.status, all.text).toBe(200)
    expect(all.body.next_cursor).toBeNull()
    expect(all.body.items).toHaveLength(3)
    for (const delivery of all.body.items) {
      expect(delivery).toEqual({
        id: expect.stringMatching(uuidPattern),
        webhook_id: good.id,
        event_id: expect.stringMatching(uuidPattern),
        event_type: "subscriber.created",
        test: false,
        status: "succeeded",
        attempt_count: 1,
        next_attempt_at: null,
        created_at: expect.stringMatching(isoInstantPattern),
        updated_at: expect.stringMatching(isoInstantPattern),
        attempts: [{
          attempt: 1,
          attempted_at: expect.stringMatching(isoInstantPattern),
          status: "succeeded",
          response_status_code: 200,
          duration_ms: expect.any(Number),
          error: null,
          next_attempt_at: null
        }]
      })
    }
    expect(all.body.items.map((d: { event_id: string }) => d.event_id).sort()).toEqual(
      ok.received.map((got) => got.headers["webhook-id"]).sort()
    )

    // One at a time with the cursor: the same deliveries in the same order.
    const paged: Array<string> = []
    let cursor: string | null = null
    do {
      const query: string = cursor === null ? "?limit=1" : `?limit=1&cursor=${encodeURIComponent(cursor)}`
      const page = await call(open, "GET", `${deliveriesPath}${query}`, { key })
      expect(page.status, page.text).toBe(200)
      expect(page.body.items.length).toBeLessThanOrEqual(1)
      paged.push(...page.body.items.map((d: { id: string }) => d.id))
      cursor = page.body.next_cursor
    } while (cursor !== null && paged.length < 10)
    expect(paged).toEqual(all.body.items.map((d: { id: string }) => d.id))

    // The failing endpoint's deliveries wait for their next attempt.
    const badPath = `${path}/${bad.id}/deliveries`
    const pending = await call(open, "GET", `${badPath}?status=pending`, { key })
    expect(pending.body.items).toHaveLength(3)
    for (const delivery of pending.body.items) {
      expect(delivery).toMatchObject({ status: "pending", attempt_count: 1, next_attempt_at: expect.stringMatching(isoInstantPattern) })
      expect(delivery.attempts).toEqual([expect.objectContaining({
        attempt: 1,
        status: "failed",
        response_status_code: 500,
        error: expect.stringContaining("500"),
        next_attempt_at: delivery.next_attempt_at
      })])
      const wait = Date.parse(delivery.next_attempt_at) - Date.parse(delivery.attempts[0].attempted_at)
      expect(wait).toBeGreaterThanOrEqual(4_500)
      expect(wait).toBeLessThanOrEqual(5_500)
    }
    expect((await call(open, "GET", `${badPath}?status=succeeded`, { key })).body).toEqual({ items: [], next_cursor: null })
    expect((await call(open, "GET", `${deliveriesPath}?status=pending`, { key })).body.items).toEqual([])
    expect((await call(open, "GET", `${path}/${quiet.id}/deliveries`, { key })).body.items).toEqual([])

    // One delivery, and one delivery under another endpoint's path.
    const first = all.body.items[0]
    const one = await call(open, "GET", `${deliveriesPath}/${first.id}`, { key })
    expect(one.status, one.text).toBe(200)
    expect(one.body).toEqual(first)
    const elsewhere = `${path}/${bad.id}/deliveries/${first.id}`
    expectProblem(await call(open, "GET", elsewhere, { key }), "not_found", elsewhere)
    expectProblem(await call(open, "POST", `${elsewhere}/retry`, { key }), "not_found", `${elsewhere}/retry`)

    // Figures of each endpoint and of the organization.
    const goodStats = await call(open, "GET", `${path}/${good.id}/stats`, { key })
    expect(goodStats.status, goodStats.text).toBe(200)
    expect(goodStats.body).toEqual({
      webhook_id: good.id,
      since: expect.stringMatching(isoInstantPattern),
      attempts: 3,
      succeeded: 3,
      failed: 0,
      success_rate: 1,
      latency_ms: { p50: expect.any(Number), p95: expect.any(Number) },
      last_success_at: expect.stringMatching(isoInstantPattern),
      last_failure_at: null,
      pending_deliveries: 0
    })
    expect(goodStats.body.latency_ms.p95).toBeGreaterThanOrEqual(goodStats.body.latency_ms.p50)
    const badStats = await call(open, "GET", `${path}/${bad.id}/stats`, { key })
    expect(badStats.body).toMatchObject({
      attempts: 3,
      succeeded: 0,
      failed: 3,
      success_rate: 0,
      last_success_at: null,
      last_failure_at: expect.stringMatching(isoInstantPattern),
      pending_deliveries: 3
    })
    const quietStats = await call(open, "GET", `${path}/${quiet.id}/stats`, { key })
    expect(quietStats.body).toMatchObject({ attempts: 0, success_rate: null, latency_ms: { p50: null, p95: null } })
    const global = await call(open, "GET", `${path}/stats/global`, { key })
    expect(global.status, global.text).toBe(200)
    expect(global.body).toMatchObject({
      endpoints: { total: 3, active: 3, disabled: 0 },
      attempts: 6,
      succeeded: 3,
      failed: 3,
      success_rate: 0.5,
      pending_deliveries: 3
    })

    // A retry makes a delivered delivery pending and due now; the next run sends it again with the same webhook-id.
    const retried = await call(open, "POST", `${deliveriesPath}/${first.id}/retry`, { key })
    expect(retried.status, retried.text).toBe(202)
    expect(retried.body).toMatchObject({ id: first.id, status: "pending", attempt_count: 1, attempts: first.attempts })
    expect(Math.abs(Date.parse(retried.body.next_attempt_at) - Date.now())).toBeLessThan(60_000)
    expect((await call(open, "GET", `${deliveriesPath}?status=pending`, { key })).body.items.map((d: { id: string }) => d.id))
      .toEqual([first.id])
    await dispatch()
    const again = await call(open, "GET", `${deliveriesPath}/${first.id}`, { key })
    expect(again.body).toMatchObject({ status: "succeeded", attempt_count: 2, next_attempt_at: null })
    expect(again.body.attempts.map((a: { attempt: number }) => a.attempt)).toEqual([1, 2])
    expect(ok.received.filter((got) => got.headers["webhook-id"] === first.event_id)).toHaveLength(2)
  })

  it("refuses a bad cursor, limit or status with 400 naming the parameter", async () => {
    const { key } = await server.seedOrganization()
    const created = await createWebhook(server, key)
    const deliveriesPath = `${path}/${created.id}/deliveries`
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["?cursor=not-a-cursor", "cursor"],
      [`?cursor=${Buffer.from(JSON.stringify(["created_at", "asc", "x", nothing])).toString("base64url")}`, "cursor"],
      ["?limit=0", "limit"],
      ["?limit=101", "limit"],
      ["?limit=ten", "limit"],
      ["?status=delivered", "status"],
      ["?sort=created_at", "sort"]
    ]
    for (const [query, field] of cases) {
      expectInvalid(await call(server, "GET", `${deliveriesPath}${query}`, { key }), deliveriesPath, [field])
    }
    expect((await call(server, "GET", `${deliveriesPath}?limit=100`, { key })).status).toBe(200)
    expect((await call(server, "GET", `${deliveriesPath}?limit=1`, { key })).status).toBe(200)
  })

  it("answers 404 for a delivery id of no delivery, and 400 for one that is not a UUID", async () => {
    const { key } = await server.seedOrganization()
    const created = await createWebhook(server, key)
    const missing = `${path}/${created.id}/deliveries/${nothing}`
    expectProblem(await call(server, "GET", missing, { key }), "not_found", missing)
    expectProblem(await call(server, "POST", `${missing}/retry`, { key }), "not_found", `${missing}/retry`)
    const bad = `${path}/${created.id}/deliveries/nope`
    expectInvalid(await call(server, "GET", bad, { key }), bad, ["delivery_id"])
  })
})

describe("hostile input never makes a webhook route fail", () => {
  it("answers below 500 to odd bodies and values on every route", async () => {
    const { key } = await server.seedOrganization()
    const created = await createWebhook(server, key)
    const itemPath = `${path}/${created.id}`
    const values: ReadonlyArray<unknown> = [
      null,
      true,
      -1,
      1e308,
      "",
      "\u0000",
      "x".repeat(5000),
      [],
      [null],
      {},
      { __proto__: { a: 1 } },
      "http://[::1",
      "https://user:pass@93.184.215.14/",
      "http://0x7f000001/",
      "http://0177.0.0.1/",
      "https://93.184.215.14:99999/"
    ]
    for (const value of values) {
      for (const field of ["url", "events", "description", "status"]) {
        for (const [method, route] of [["POST", path], ["PUT", itemPath]] as const) {
          const json = method === "POST" && field !== "url" ? { url: publicUrl, [field]: value } : { [field]: value }
          const answer = await call(server, method, route, { key, json })
          expect(answer.status, `${method} ${route} ${JSON.stringify(json)}: ${answer.text}`).toBeLessThan(500)
        }
      }
    }
    for (const body of ["", "[]", "null", "{", "\"url\""]) {
      for (const [method, route] of [["POST", path], ["PUT", itemPath], ["POST", `${itemPath}/regenerate-secret`]] as const) {
        const answer = await call(server, method, route, { key, body, headers: { "content-type": "application/json" } })
        expect(answer.status, `${method} ${route} ${body}: ${answer.text}`).toBeLessThan(500)
      }
    }
  })
})

describe("the OpenAPI document", () => {
  it("lists every webhook route with a summary, a description and its errors", async () => {
    const answer = await call(server, "GET", "/openapi.json")
    expect(answer.status).toBe(200)
    const paths = answer.body.paths as Record<string, Record<string, { summary?: string; description?: string; responses: Record<string, unknown> }>>
    const webhookRoutes = Object.entries(paths)
      .filter(([route]) => route.startsWith("/api/v1/webhooks"))
      .flatMap(([route, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${route}`))
      .sort()
    expect(webhookRoutes).toEqual([
      "DELETE /api/v1/webhooks/{webhook_id}",
      "GET /api/v1/webhooks",
      "GET /api/v1/webhooks/event-types",
      "GET /api/v1/webhooks/stats/global",
      "GET /api/v1/webhooks/{webhook_id}",
      "GET /api/v1/webhooks/{webhook_id}/deliveries",
      "GET /api/v1/webhooks/{webhook_id}/deliveries/{delivery_id}",
      "GET /api/v1/webhooks/{webhook_id}/stats",
      "POST /api/v1/webhooks",
      "POST /api/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/retry",
      "POST /api/v1/webhooks/{webhook_id}/regenerate-secret",
      "POST /api/v1/webhooks/{webhook_id}/test",
      "PUT /api/v1/webhooks/{webhook_id}"
    ])
    for (const [route, item] of Object.entries(paths).filter(([route]) => route.startsWith("/api/v1/webhooks"))) {
      for (const [method, operation] of Object.entries(item)) {
        expect(operation.summary, `${method} ${route}`).toEqual(expect.any(String))
        expect(operation.description, `${method} ${route}`).toEqual(expect.any(String))
        for (const [status, response] of Object.entries(operation.responses)) {
          if (Number(status) < 400) continue
          expect(Object.keys((response as { content?: object }).content ?? {}), `${method} ${route} ${status}`)
            .toEqual(["application/problem+json"])
        }
      }
    }
    const statuses = (method: string, route: string) => Object.keys(paths[route]![method]!.responses).sort()
    expect(statuses("post", "/api/v1/webhooks")).toEqual(["201", "400", "401", "403", "409", "413", "415", "422", "429", "500", "503"])
    expect(statuses("get", "/api/v1/webhooks/{webhook_id}")).toEqual(["200", "400", "401", "403", "404", "429", "500", "503"])
    expect(statuses("delete", "/api/v1/webhooks/{webhook_id}")).toEqual(["204", "400", "401", "403", "404", "413", "415", "429", "500", "503"])
    expect(statuses("post", "/api/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/retry")).toContain("202")
    const tags = (answer.body.tags as Array<{ name: string; description?: string }>).find((tag) => tag.name === "Webhooks")
    for (const told of ["webhook-signature", "Retry-After", "410", "10 seconds", "24 hours", "five days", "5 min"]) {
      expect(tags?.description).toContain(told)
    }
    const schemas = answer.body.components.schemas
    expect(schemas.WebhookEndpoint.properties).not.toHaveProperty("signing_secret")
    expect(schemas.WebhookEndpointWithSecret.properties).toHaveProperty("signing_secret")
    expect(schemas.WebhookDelivery.properties).toHaveProperty("attempts")
  })
})
