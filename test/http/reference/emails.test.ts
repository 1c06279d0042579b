/**
 * /api/v1/emails: single sends. An email is rendered when accepted and answered 202 with its
 * record; the test server runs no worker, so these tests hand queued email to the (console)
 * mailer with the delivery use case themselves, as the worker does.
 */
import { EmailUsage, SubscriberRepository } from "@roster/application"
import { OrganizationId, Subscriber, SubscriberId, usageMonth } from "@roster/domain"
import { Effect, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../../support/http-server.js"
import { deliverDue } from "../../support/worker-steps.js"
import { createSubscriber, expectInvalid, expectProblem, freshEmail, isoInstantPattern, uuidPattern } from "../helpers.js"

let server: TestHttpServer
/** With an unsubscribe mailbox configured. */
let mailbox: TestHttpServer

beforeAll(async () => {
  server = await startHttpServer({ adapters: UnlimitedRateLimiterLive })
  mailbox = await startHttpServer({
    adapters: UnlimitedRateLimiterLive,
    config: { EMAIL_UNSUBSCRIBE_MAILTO: "unsubscribe@acme.example", PUBLIC_BASE_URL: "https://news.acme.example" }
  })
})
afterAll(async () => {
  await Promise.all([server.close(), mailbox.close()])
})

const path = "/api/v1/emails"
const nothing = "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"

/** An organization with a live key (its email reaches the mailer) and one subscriber. */
const sender = async (on: TestHttpServer = server, subscriber: Record<string, unknown> = {}) => {
  const seeded = await on.seedOrganization({ environment: "live" })
  const reader = await createSubscriber(on, seeded.key, { metadata: { name: "Ada" }, ...subscriber })
  return { ...seeded, reader }
}

const send = (on: TestHttpServer, key: string, json: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call(on, "POST", `${path}/send`, { key, json, headers })

const inline = { subject: "Hello {{ subscriber.metadata.name }}", text: "Hi {{ subscriber.metadata.name }}, order {{ data.order }}." }

/** A subscriber who unsubscribed, as the API moves them. */
const unsubscribedSubscriber = async (key: string) => {
  const reader = await createSubscriber(server, key)
  const moved = await call(server, "PUT", `/api/v1/subscribers/${reader.id}`, { key, json: { status: "unsubscribed" } })
  expect(moved.status, moved.text).toBe(200)
  return reader
}

/** What the worker does: every due email handed to the mailer. */
const deliver = (on: TestHttpServer) =>
  on.run(deliverDue())

const printedTo = (on: TestHttpServer, address: string) =>
  on.emails().filter((email) => email.includes(`To: ${address}\n`))

describe("POST /api/v1/emails/send", () => {
  it("renders the email for the subscriber, answers 202 queued, and the worker hands it to the mailer", async () => {
    const { key, organization, reader } = await sender()
    const answer = await send(server, key, { to: reader.email, kind: "transactional", ...inline, data: { order: "A-17" } })
    expect(answer.status, answer.text).toBe(202)
    expect(answer.body).toMatchObject({
      subscriber_id: reader.id,
      template_id: null,
      kind: "transactional",
      to: reader.email,
      from: `"${organization.name}" <noreply@localhost>`,
      subject: "Hello Ada",
      text: "Hi Ada, order A-17.",
      html: null,
      headers: {},
      status: "queued",
      provider_message_id: null,
      error: null,
      attempts: 0
    })
    expect(answer.body.id).toMatch(uuidPattern)
    expect(answer.body.created_at).toMatch(isoInstantPattern)
    expect(answer.body.history).toEqual([{ type: "queued", at: answer.body.created_at, detail: null }])

    expect(await deliver(server)).toBe(1)
    const [printed] = printedTo(server, reader.email)
    expect(printed).toContain("Subject: Hello Ada")
    expect(printed).toContain(`From: "${organization.name}" <noreply@localhost>`)
    expect(printed).toContain(`Idempotency-Key: ${answer.body.id}`)
    expect(printed).toContain("Hi Ada, order A-17.")

    const got = await call(server, "GET", `${path}/${answer.body.id}`, { key })
    expect(got.status).toBe(200)
    expect(got.body.status).toBe("sent")
    expect(got.body.provider_message_id).toMatch(/^console-/)
    expect(got.body.attempts).toBe(1)
    expect(got.body.history.map((e: { type: string }) => e.type)).toEqual(["queued", "sent"])
  })

  it("finds the recipient by subscriber_id too, and escapes what it puts into HTML", async () => {
    const { key, reader } = await sender(server, { metadata: { name: "<b>Ada</b>" } })
    const answer = await send(server, key, {
      subscriber_id: reader.id,
      kind: "transactional",
      subject: "For {{ subscriber.metadata.name }}",
      html: "<p>{{ subscriber.metadata.name }}</p>"
    })
    expect(answer.status, answer.text).toBe(202)
    expect(answer.body.html).toBe("<p>&lt;b&gt;Ada&lt;/b&gt;</p>")
    expect(answer.body.subject).toBe("For <b>Ada</b>")
  })

  it("marketing email carries one-click List-Unsubscribe headers whose link unsubscribes the subscriber", async () => {
    const { key, reader } = await sender()
    const answer = await send(server, key, { to: reader.email, kind: "marketing", ...inline })
    expect(answer.status, answer.text).toBe(202)
    const headers = answer.body.headers as Record<string, string>
    expect(headers["List-Unsubscribe-Post"]).toBe("List-Unsubscribe=One-Click")
    const url = /^<(http:\/\/localhost:3000\/unsubscribe\?token=[^>]+)>$/.exec(headers["List-Unsubscribe"]!)?.[1]
    expect(url, headers["List-Unsubscribe"]).toBeDefined()

    await deliver(server)
    const [printed] = printedTo(server, reader.email)
    expect(printed).toContain(`List-Unsubscribe: <${url}>`)
    expect(printed).toContain("List-Unsubscribe-Post: List-Unsubscribe=One-Click")

    // What a mail client does with the header: a POST of the one-click body to the link.
    const oneClick = await fetch(url!.replace("http://localhost:3000", server.baseUrl), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "List-Unsubscribe=One-Click"
    })
    expect(oneClick.status).toBe(200)
    const after = await call(server, "GET", `/api/v1/subscribers/${reader.id}`, { key })
    expect(after.body.status).toBe("unsubscribed")
  })

  it("an email that does not say its kind is marketing: it carries List-Unsubscribe and skips unsubscribed subscribers", async () => {
    const { key, reader } = await sender()
    const answer = await send(server, key, { to: reader.email, ...inline })
    expect(answer.status, answer.text).toBe(202)
    expect(answer.body).toMatchObject({ kind: "marketing", status: "queued" })
    expect(answer.body.headers["List-Unsubscribe-Post"]).toBe("List-Unsubscribe=One-Click")
    await deliver(server)
    expect(printedTo(server, reader.email)[0]).toContain("List-Unsubscribe-Post: List-Unsubscribe=One-Click")

    const unsubscribed = await unsubscribedSubscriber(key)
    const withheld = await send(server, key, { to: unsubscribed.email, ...inline })
    expect(withheld.status, withheld.text).toBe(202)
    expect(withheld.body).toMatchObject({ kind: "marketing", status: "suppressed" })
    expect(await deliver(server)).toBe(0)
    expect(printedTo(server, unsubscribed.email)).toHaveLength(0)
  })

  it("offers the operator's unsubscribe mailbox beside the one-click link, and links under PUBLIC_BASE_URL", async () => {
    const { key, reader } = await sender(mailbox)
    const answer = await send(mailbox, key, {
      to: reader.email,
      kind: "marketing",
      subject: "News",
      text: "Manage: {{ preferences_url }} Leave: {{ unsubscribe_url }}"
    })
    expect(answer.status, answer.text).toBe(202)
    expect(answer.body.headers["List-Unsubscribe"]).toMatch(
      /^<https:\/\/news\.acme\.example\/unsubscribe\?token=[^>]+>, <mailto:unsubscribe@acme\.example\?subject=unsubscribe>$/
    )
    expect(answer.body.text).toMatch(
      /^Manage: https:\/\/news\.acme\.example\/preference-center\?token=\S+ Leave: https:\/\/news\.acme\.example\/unsubscribe\?token=\S+$/
    )
  })

  it("bounced and complained subscribers receive nothing, unsubscribed ones transactional email only", async () => {
    const { key, organization } = await sender()
    const unsubscribed = await unsubscribedSubscriber(key)
    const transactional = await send(server, key, { to: unsubscribed.email, kind: "transactional", ...inline })
    expect(transactional.body.status).toBe("queued")
    const marketing = await send(server, key, { to: unsubscribed.email, kind: "marketing", ...inline })
    expect(marketing.status).toBe(202)
    expect(marketing.body.status).toBe("suppressed")
    expect(marketing.body.error).toContain("unsubscribed")
    expect(marketing.body.history).toEqual([
      { type: "suppressed", at: marketing.body.created_at, detail: marketing.body.error }
    ])

    for (const status of ["bounced", "complained"] as const) {
      const reader = await createSubscriber(server, key)
      await forceStatus(organization.id, reader.id, status)
      const answer = await send(server, key, { to: reader.email, kind: "transactional", ...inline })
      expect(answer.status).toBe(202)
      expect(answer.body.status).toBe("suppressed")
    }
    // Only the transactional email to the unsubscribed subscriber went out.
    expect(await deliver(server)).toBe(1)
    expect(printedTo(server, unsubscribed.email)).toHaveLength(1)
  })

  it("a subscriber who asked to be erased receives nothing while the erasure waits", async () => {
    const { key, reader } = await sender()
    const link = await call(server, "POST", `/api/v1/subscribers/${reader.id}/token`, { key })
    expect((await call(server, "DELETE", `/preference-center/account?token=${encodeURIComponent(link.body.token)}`)).status).toBe(202)
    const answer = await send(server, key, { to: reader.email, kind: "transactional", ...inline })
    expect(answer.body.status).toBe("suppressed")
    expect(answer.body.error).toContain("erased")
  })

  it("a svc_test_ key's email is recorded sandboxed: it never reaches the mailer nor counts against the plan", async () => {
    const { key, organization } = await server.seedOrganization()
    const reader = await createSubscriber(server, key)
    const answer = await send(server, key, { to: reader.email, kind: "transactional", ...inline })
    expect(answer.status, answer.text).toBe(202)
    expect(answer.body.status).toBe("sandboxed")
    expect(await deliver(server)).toBe(0)
    expect(printedTo(server, reader.email)).toHaveLength(0)
    const counted = await server.run(Effect.flatMap(EmailUsage, (usage) => usage.sentIn(organization.id, usageMonth(new Date()))))
    expect(counted).toBe(0)
  })

  it("past the plan's monthly email limit it answers 402 limit_exceeded and queues nothing", async () => {
    const { key, organization, reader } = await sender()
    const month = usageMonth(new Date())
    await server.run(Effect.flatMap(EmailUsage, (usage) => usage.reserve(organization.id, month, 9_999, null)))
    const last = await send(server, key, { to: reader.email, kind: "transactional", ...inline })
    expect(last.status, last.text).toBe(202)
    const over = await send(server, key, { to: reader.email, kind: "transactional", ...inline })
    expectProblem(over, "limit_exceeded", `${path}/send`)
    expect(over.body.detail).toContain("10000 emails per month")
    const listed = await call(server, "GET", path, { key })
    expect(listed.body.items).toHaveLength(1)
    // Withheld email never counts, so it is still accepted.
    const unsubscribed = await unsubscribedSubscriber(key)
    expect((await send(server, key, { to: unsubscribed.email, kind: "marketing", ...inline })).body.status).toBe("suppressed")
  })

  it("an Idempotency-Key sends once", async () => {
    const { key, reader } = await sender()
    const headers = { "Idempotency-Key": `send-${reader.id}` }
    const first = await send(server, key, { to: reader.email, kind: "transactional", ...inline }, headers)
    const again = await send(server, key, { to: reader.email, kind: "transactional", ...inline }, headers)
    expect(first.status).toBe(202)
    expect(again.status).toBe(202)
    expect(again.headers.get("idempotent-replayed")).toBe("true")
    expect(again.body.id).toBe(first.body.id)
    expect((await call(server, "GET", path, { key })).body.items).toHaveLength(1)
  })

  it("refuses recipients it cannot send to with a 4xx naming why", async () => {
    const { key, reader } = await sender()
    const other = await sender()
    expectInvalid(await send(server, key, { to: freshEmail(), kind: "transactional", ...inline }), `${path}/send`, ["to"])
    // Another organization's subscriber by address is simply not one of ours.
    expectInvalid(await send(server, key, { to: other.reader.email, kind: "transactional", ...inline }), `${path}/send`, ["to"])
    expectProblem(await send(server, key, { subscriber_id: other.reader.id, kind: "transactional", ...inline }), "forbidden", `${path}/send`)
    expectProblem(await send(server, key, { subscriber_id: nothing, kind: "transactional", ...inline }), "not_found", `${path}/send`)
    expectInvalid(
      await send(server, key, { to: reader.email, subscriber_id: reader.id, kind: "transactional", ...inline }),
      `${path}/send`,
      ["to"]
    )
    expectInvalid(await send(server, key, { kind: "transactional", ...inline }), `${path}/send`, ["to"])
  })

  it("refuses content it cannot send with a 400 naming the field", async () => {
    const { key, reader } = await sender()
    const to = reader.email
    const at = `${path}/send`
    expectInvalid(await send(server, key, { to, kind: "newsletter", ...inline }), at, ["kind"])
    expectInvalid(await send(server, key, { to, kind: "marketing", text: "no subject" }), at, ["subject"])
    expectInvalid(await send(server, key, { to, kind: "marketing", subject: "no body" }), at, ["html"])
    expectInvalid(await send(server, key, { to, kind: "marketing", ...inline, cc: "x@example.com" }), at, ["cc"])
    expectInvalid(await send(server, key, { to, kind: "marketing", subject: "Hi", text: "{% include 'secrets' %}" }), at, ["text"])
    expectInvalid(await send(server, key, { to, kind: "marketing", subject: "Hi", html: "{% if %}" }), at, ["html"])
    expectInvalid(await send(server, key, { to, kind: "marketing", subject: "{{ nothing }}", text: "x" }), at, ["subject"])
    expectInvalid(
      await send(server, key, { to, kind: "marketing", subject: "Hi", text: "x", data: { big: "x".repeat(70_000) } }),
      at,
      ["data"]
    )
    expectInvalid(
      await send(server, key, { to, kind: "marketing", template_id: nothing, subject: "Hi", text: "x" }),
      at,
      ["template_id"]
    )
    expectProblem(await send(server, key, { to, kind: "marketing", template_id: nothing }), "not_found", at)
  })

  it("stops a template that runs too long or grows too large with a 400", async () => {
    const { key, reader } = await sender()
    const answer = await send(server, key, {
      to: reader.email,
      kind: "transactional",
      subject: "Loop",
      text: "{% for i in (1..100000000) %}{{ i }}{% endfor %}"
    })
    expectInvalid(answer, `${path}/send`, ["text"])
    expect((await call(server, "GET", path, { key })).body.items).toHaveLength(0)
  })

  it("needs emails:send, and a credential", async () => {
    const { organization, reader } = await sender()
    const reading = await server.createApiKey(organization, ["emails:read", "subscribers:read"], "live")
    const refused = await send(server, reading, { to: reader.email, kind: "transactional", ...inline })
    expectProblem(refused, "forbidden", `${path}/send`)
    expect(refused.body.detail).toContain("emails:send")
    expectProblem(await call(server, "POST", `${path}/send`, { json: { to: reader.email } }), "unauthorized", `${path}/send`)
  })
})

describe("GET /api/v1/emails", () => {
  it("lists the organization's emails newest first, by subscriber and status, page by page", async () => {
    const { key, reader } = await sender()
    const other = await unsubscribedSubscriber(key)
    const first = await send(server, key, { to: reader.email, kind: "transactional", ...inline })
    const second = await send(server, key, { to: other.email, kind: "marketing", ...inline })
    const third = await send(server, key, { to: reader.email, kind: "marketing", ...inline })
    const elsewhere = await sender()
    await send(server, elsewhere.key, { to: elsewhere.reader.email, kind: "transactional", ...inline })

    const all = await call(server, "GET", path, { key })
    expect(all.status).toBe(200)
    expect(all.body.items.map((e: { id: string }) => e.id)).toEqual([third.body.id, second.body.id, first.body.id])
    expect(all.body.items[0].history).toEqual(third.body.history)

    const page = await call(server, "GET", `${path}?limit=2`, { key })
    expect(page.body.items).toHaveLength(2)
    const next = await call(server, "GET", `${path}?limit=2&cursor=${encodeURIComponent(page.body.next_cursor)}`, { key })
    expect(next.body.items.map((e: { id: string }) => e.id)).toEqual([first.body.id])
    expect(next.body.next_cursor).toBeNull()

    const mine = await call(server, "GET", `${path}?subscriber_id=${reader.id}`, { key })
    expect(mine.body.items.map((e: { id: string }) => e.id)).toEqual([third.body.id, first.body.id])
    const suppressed = await call(server, "GET", `${path}?status=suppressed`, { key })
    expect(suppressed.body.items.map((e: { id: string }) => e.id)).toEqual([second.body.id])
    expectInvalid(await call(server, "GET", `${path}?status=lost`, { key }), path, ["status"])
    expectInvalid(await call(server, "GET", `${path}?limit=0`, { key }), path, ["limit"])
  })

  it("shows one email to its organization only, and needs emails:read", async () => {
    const { key, organization, reader } = await sender()
    const sent = await send(server, key, { to: reader.email, kind: "transactional", ...inline })
    const elsewhere = await server.seedOrganization()
    expectProblem(await call(server, "GET", `${path}/${sent.body.id}`, { key: elsewhere.key }), "forbidden", `${path}/${sent.body.id}`)
    expectProblem(await call(server, "GET", `${path}/${nothing}`, { key }), "not_found", `${path}/${nothing}`)
    expectInvalid(await call(server, "GET", `${path}/not-an-id`, { key }), `${path}/not-an-id`, ["email_id"])
    const sending = await server.createApiKey(organization, ["emails:send"], "live")
    const refused = await call(server, "GET", `${path}/${sent.body.id}`, { key: sending })
    expectProblem(refused, "forbidden", `${path}/${sent.body.id}`)
    expect(refused.body.detail).toContain("emails:read")
  })
})

/** A bounce or complaint, as only the provider can report one, written through the repository. */
const forceStatus = (organizationId: string, id: string, status: "bounced" | "complained") =>
  server.run(Effect.gen(function*() {
    const subscribers = yield* SubscriberRepository
    const current = Option.getOrThrow(
      yield* subscribers.findById(OrganizationId.make(organizationId), SubscriberId.make(id))
    )
    yield* subscribers.update(new Subscriber({ ...current, status }))
  }))
