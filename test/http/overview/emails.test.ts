/**
 * Single emails in the overview form (`API_FORM=overview`), over the real server: POST
 * /v1/emails/send, GET /v1/emails and GET /v1/emails/:id, under /v1 and /api/v1, in the `data`
 * envelope with numbered pages, errors in the `error` envelope. The rules themselves are the
 * reference form's suite's; this one shows they hold here too.
 */
import { EmailDelivery, EmailUsage } from "@roster/application"
import { usageMonth } from "@roster/domain"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../../support/http-server.js"
import { createSubscriber, expectError, expectInvalid, freshEmail, uuidPattern } from "./helpers.js"

let server: TestHttpServer
beforeAll(async () => {
  server = await startHttpServer({ form: "overview", adapters: UnlimitedRateLimiterLive })
})
afterAll(() => server.close())

const nothing = "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"

const sender = async () => {
  const seeded = await server.seedOrganization({ environment: "live" })
  const reader = await createSubscriber(server, seeded.key, { first_name: "Ada" })
  return { ...seeded, reader }
}

const send = (key: string, json: Record<string, unknown>, prefix = "/v1") =>
  call(server, "POST", `${prefix}/emails/send`, { key, json })

const inline = { subject: "Hello {{ subscriber.first_name }}", html: "<p>Hi {{ subscriber.first_name }}</p>" }

describe("POST /v1/emails/send", () => {
  it("answers 202 with the email in `data`, under /v1 and /api/v1, and the worker hands it over", async () => {
    const { key, reader } = await sender()
    const answer = await send(key, { to: reader.email, kind: "marketing", ...inline })
    expect(answer.status, answer.text).toBe(202)
    expect(Object.keys(answer.body)).toEqual(["data"])
    expect(answer.body.data).toMatchObject({
      id: expect.stringMatching(uuidPattern),
      subscriber_id: reader.id,
      subject: "Hello Ada",
      html: "<p>Hi Ada</p>",
      status: "queued",
      headers: { "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" }
    })
    const viaApi = await send(key, { subscriber_id: reader.id, kind: "transactional", ...inline }, "/api/v1")
    expect(viaApi.status, viaApi.text).toBe(202)

    const handed = await server.run(Effect.flatMap(EmailDelivery, (d) =>
      d.deliverNext({ batchSize: 100, leaseMs: 30_000, providerRate: 1_000 })))
    expect(handed).toBe(2)
    const got = await call(server, "GET", `/v1/emails/${answer.body.data.id}`, { key })
    expect(got.body.data.status).toBe("sent")
    expect(got.body.data.history.map((e: { type: string }) => e.type)).toEqual(["queued", "sent"])
  })

  it("an email that does not say its kind is marketing: it carries List-Unsubscribe and skips unsubscribed subscribers", async () => {
    const { key, reader } = await sender()
    const answer = await send(key, { to: reader.email, ...inline })
    expect(answer.status, answer.text).toBe(202)
    expect(answer.body.data).toMatchObject({
      kind: "marketing",
      status: "queued",
      headers: { "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" }
    })
    const gone = await createSubscriber(server, key)
    const moved = await call(server, "PATCH", `/v1/subscribers/${gone.id}`, { key, json: { status: "unsubscribed" } })
    expect(moved.status, moved.text).toBe(200)
    const withheld = await send(key, { subscriber_id: gone.id, ...inline })
    expect(withheld.status, withheld.text).toBe(202)
    expect(withheld.body.data).toMatchObject({ kind: "marketing", status: "suppressed" })
    const transactional = await send(key, { subscriber_id: gone.id, kind: "transactional", ...inline })
    expect(transactional.body.data).toMatchObject({ kind: "transactional", status: "queued" })
  })

  it("answers its errors in the error envelope", async () => {
    const { key, organization, reader } = await sender()
    expectInvalid(await send(key, { to: freshEmail(), kind: "transactional", ...inline }), ["to"])
    expectInvalid(await send(key, { to: reader.email, kind: "weekly", ...inline }), ["kind"])
    expectInvalid(await send(key, { to: reader.email, kind: "transactional", subject: "x", html: "{% render 'x' %}" }), ["html"])
    expectError(await send(key, { to: reader.email, kind: "transactional", template_id: nothing }), "not_found")
    const other = await sender()
    expectError(await send(key, { subscriber_id: other.reader.id, kind: "transactional", ...inline }), "forbidden")
    const reading = await server.createApiKey(organization, ["emails:read"], "live")
    expectError(await send(reading, { to: reader.email, kind: "transactional", ...inline }), "forbidden")

    await server.run(Effect.flatMap(EmailUsage, (usage) =>
      usage.reserve(organization.id, usageMonth(new Date()), 10_000, null)))
    const over = await send(key, { to: reader.email, kind: "transactional", ...inline })
    expect(over.status).toBe(402)
    expect(over.body.error.code).toBe("limit_exceeded")
  })
})

describe("GET /v1/emails", () => {
  it("lists the organization's emails newest first in numbered pages, filtered by subscriber and status", async () => {
    const { key, reader } = await sender()
    const other = await createSubscriber(server, key)
    const ids: Array<string> = []
    for (const to of [reader.email, other.email, reader.email]) {
      ids.push((await send(key, { to, kind: "transactional", ...inline })).body.data.id)
    }
    const page = await call(server, "GET", "/v1/emails?per_page=2&page=2", { key })
    expect(page.status, page.text).toBe(200)
    expect(page.body.meta).toEqual({ total: 3, page: 2, per_page: 2, total_pages: 2 })
    expect(page.body.data.map((e: { id: string }) => e.id)).toEqual([ids[0]])
    const mine = await call(server, "GET", `/v1/emails?subscriber_id=${reader.id}&status=queued`, { key })
    expect(mine.body.data.map((e: { id: string }) => e.id)).toEqual([ids[2], ids[0]])
    expectInvalid(await call(server, "GET", "/v1/emails?per_page=500", { key }), ["per_page"])
    expectError(await call(server, "GET", `/v1/emails/${nothing}`, { key }), "not_found")
  })
})
