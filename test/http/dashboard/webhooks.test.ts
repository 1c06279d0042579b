/**
 * The dashboard's webhooks screen through the running server, in both deployments: an endpoint
 * added with its kinds and its secret shown once, changed, disabled and enabled again, its secret
 * rotated, a test event sent, its delivery log with each attempt's request and answer, a delivery
 * sent again, and the endpoint deleted; refusals beside their fields (a bad URL, an unknown event
 * kind, no kind, a loopback target where they are not allowed), another organization's endpoint
 * and delivery, members, and forms posted without the session's token.
 */
import { WebhookDispatch } from "@roster/application"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, freshAddress, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../../support/http-server.js"
import { startWebhookReceiver, type WebhookReceiver } from "../../support/webhook-receiver.js"
import { fieldError, type Page, personIn, unescape } from "./dashboard-browser.js"

const deployments = ["reference", "overview"] as const

/** The secret on the page that shows it once. */
const shownSecret = (page: Page) => /id="webhook-secret-value"[^>]*value="(whsec_[A-Za-z0-9+/=]+)"/.exec(page.body)?.[1]
const endpointIdOf = (page: Page) => /\/webhooks\/([0-9a-f-]{36})"/.exec(page.body)?.[1]
const deliveryIdsOf = (page: Page) =>
  [...page.body.matchAll(/\/deliveries\/([0-9a-f-]{36})\/redeliver"/g)].map((match) => match[1]!)
/** The answers' HTTP statuses in the log, newest attempt first. */
const loggedStatuses = (page: Page) => [...page.body.matchAll(/<dd class="response-status">([^<]*)<\/dd>/g)].map((match) => match[1]!)

describe.each(deployments)("the webhooks screen in the %s deployment", (deployment) => {
  let server: TestHttpServer
  let closed: TestHttpServer
  let receiver: WebhookReceiver
  let answer = 500
  beforeAll(async () => {
    server = await startHttpServer({ form: deployment, adapters: UnlimitedRateLimiterLive, config: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" } })
    closed = await startHttpServer({ form: deployment, adapters: UnlimitedRateLimiterLive })
    receiver = await startWebhookReceiver(() => ({ status: answer, body: "not <today>" }))
  })
  afterAll(() => Promise.all([server.close(), closed.close(), receiver.close()]))
  const api = () => deployment === "overview" ? "/v1" : "/api/v1"

  /** What the worker does: every recorded event to a delivery per endpoint, then every due delivery sent. */
  const dispatch = () =>
    server.run(Effect.gen(function*() {
      const webhooks = yield* WebhookDispatch
      while ((yield* webhooks.fanOut(200)).events > 0) {
        // until every recorded event is taken
      }
      yield* webhooks.deliverDue(200, 30_000)
    }))

  /** An owner with an endpoint made through the screen, and its page. */
  const withEndpoint = async (events: ReadonlyArray<string> = ["subscriber.created"]) => {
    const person = await personIn(server)
    const made = await person.b.post(`${person.base}/webhooks`, { csrf: person.csrf, url: receiver.url, description: "CRM <sync>", events })
    expect(made.status, made.body).toBe(200)
    const id = endpointIdOf(made)!
    return { ...person, made, id, path: `${person.base}/webhooks/${id}` }
  }

  it("adds an endpoint with its kinds, shows its secret once, and lists it", async () => {
    const person = await personIn(server)
    const { b, base, csrf } = person
    const empty = await b.get(`${base}/webhooks`)
    expect(empty.status).toBe(200)
    expect(empty.body).toContain("No webhook endpoints yet.")
    expect(empty.body).toContain(`<a href="${base}/webhooks" aria-current="page">Webhooks</a>`)
    for (const kind of ["subscriber.created", "tag.subscribed", "form.list_full"]) {
      expect(empty.body).toContain(`name="events" value="${kind}"`)
    }

    const made = await b.post(`${base}/webhooks`, {
      csrf,
      url: receiver.url,
      description: "CRM <sync>",
      events: ["subscriber.created", "tag.subscribed"]
    })
    expect(made.status).toBe(200)
    expect(made.headers.get("cache-control")).toBe("no-store")
    expect(made.headers.get("location")).toBeNull()
    const secret = shownSecret(made)!
    expect(secret).toMatch(/^whsec_/)
    expect(made.body).toContain("it is shown this once")

    const key = await server.createApiKey(person.organization)
    const listed = await call(server, "GET", `${api()}/webhooks`, { key })
    const endpoints = (listed.body.data ?? listed.body.items ?? listed.body) as ReadonlyArray<{ id: string; url: string; events: Array<string> }>
    expect(endpoints.map((e) => [e.url, e.events])).toEqual([[receiver.url, ["subscriber.created", "tag.subscribed"]]])

    const list = await b.get(`${base}/webhooks`)
    expect(list.body).toContain(receiver.url)
    expect(list.body).toContain("CRM &lt;sync&gt;")
    expect(list.body).toContain("<code class=\"scope\">tag.subscribed</code>")
    expect(list.body).toContain("Enabled")
    expect(list.body).not.toContain(secret)
    expect((await b.get(`${base}/webhooks/${endpoints[0]!.id}`)).body).not.toContain(secret)
  })

  it("refuses a bad URL, an unknown event kind and no kind beside their fields, in German too, and adds nothing", async () => {
    const { b, base, csrf } = await personIn(server)
    const badUrl = await b.post(`${base}/webhooks`, { csrf, url: "ftp://example.com/hook", events: ["subscriber.created"] })
    expect(badUrl.status).toBe(400)
    expect(fieldError(badUrl, "webhook-url")).toContain("starts with https:// or http://")
    expect(badUrl.body).toContain("value=\"ftp://example.com/hook\"")
    expect(badUrl.body).toContain("value=\"subscriber.created\" checked")
    const notAUrl = await b.post(`${base}/webhooks`, { csrf, url: "example.com/hook", events: ["subscriber.created"] })
    expect(fieldError(notAUrl, "webhook-url")).toBeDefined()
    const unknown = await b.post(`${base}/webhooks`, { csrf, url: receiver.url, events: ["subscriber.created", "subscriber.exploded"] })
    expect(unknown.status).toBe(400)
    expect(fieldError(unknown, "webhook-events")).toBe("Choose event kinds from the list; subscriber.exploded is not one.")
    const none = await b.post(`${base}/webhooks`, { csrf, url: receiver.url })
    expect(none.status).toBe(400)
    expect(fieldError(none, "webhook-events")).toBe("Choose at least one event kind.")
    const german = await b.post(`${base}/webhooks`, { csrf, url: "nope", events: [] }, { "accept-language": "de" })
    expect(fieldError(german, "webhook-url")).toContain("Geben Sie eine absolute Adresse ein")
    expect(fieldError(german, "webhook-events")).toBe("Wählen Sie mindestens eine Ereignisart.")
    expect((await b.get(`${base}/webhooks`)).body).toContain("No webhook endpoints yet.")
  })

  it("refuses a loopback target where private targets are not allowed, beside the URL", async () => {
    const { b, base, csrf } = await personIn(closed)
    const refused = await b.post(`${base}/webhooks`, { csrf, url: receiver.url, events: ["subscriber.created"] })
    expect(refused.status).toBe(400)
    expect(fieldError(refused, "webhook-url")).toBeDefined()
    expect(refused.body).not.toContain("whsec_")
  })

  it("changes an endpoint, refuses a bad change beside its field, disables and enables it", async () => {
    const { b, csrf, path } = await withEndpoint()
    const saved = await b.post(path, { csrf, url: `${receiver.url}?v=2`, description: "", events: ["tag.subscribed", "tag.unsubscribed"] })
    expect(saved.status).toBe(303)
    expect(saved.headers.get("location")).toBe(path)
    const page = await b.get(path)
    expect(unescape(page.body)).toContain(`The endpoint ${receiver.url}?v=2 was saved.`)
    expect(page.body).toContain("value=\"tag.unsubscribed\" checked")
    expect(page.body).not.toContain("value=\"subscriber.created\" checked")

    const bad = await b.post(path, { csrf, url: "javascript:alert(1)", events: ["made.up"] })
    expect(bad.status).toBe(400)
    expect(fieldError(bad, "webhook-url")).toBeDefined()
    expect(fieldError(bad, "webhook-events")).toBe("Choose event kinds from the list; made.up is not one.")

    const disabled = await b.post(`${path}/status`, { csrf, status: "disabled" })
    expect(disabled.status).toBe(303)
    const off = await b.get(path)
    expect(off.body).toContain("is disabled; its deliveries wait")
    expect(off.body).toContain("Disabled</span> disabled by a person")
    expect(off.body).toContain("name=\"status\" value=\"active\"")
    const badStatus = await b.post(`${path}/status`, { csrf, status: "paused" })
    expect(badStatus.status).toBe(400)
    expect(badStatus.body).toContain("Choose to enable or to disable the endpoint.")
    expect((await b.post(`${path}/status`, { csrf, status: "active" })).status).toBe(303)
    expect((await b.get(path)).body).toContain("name=\"status\" value=\"disabled\"")
  })

  it("rotates the secret after a confirmation and shows the new one once", async () => {
    const { b, csrf, made, path } = await withEndpoint()
    const first = shownSecret(made)!
    const confirm = await b.get(`${path}/rotate`)
    expect(confirm.status).toBe(200)
    expect(confirm.body).not.toContain(first)
    const rotated = await b.post(`${path}/rotate`, { csrf })
    expect(rotated.status).toBe(200)
    const fresh = shownSecret(rotated)!
    expect(fresh).toMatch(/^whsec_/)
    expect(fresh).not.toBe(first)
    expect(rotated.body).toContain("keeps signing beside this one for 24 hours")
    expect((await b.get(path)).body).not.toContain(fresh)
  })

  it("sends a test event, tells what came back, and keeps it in the log as a test that only a redelivery sends again", async () => {
    const { b, csrf, path } = await withEndpoint()
    answer = 500
    const failed = await b.post(`${path}/test`, { csrf })
    expect(failed.status).toBe(303)
    const after = await b.get(path)
    expect(after.body).toMatch(/The test event failed after \d+ ms: answered 500\./)
    expect(after.body).toContain("class=\"flash error\"")
    expect(after.body).not.toContain("No deliveries yet.")
    expect(after.body).toContain(
      "<code>webhook.test</code> <span class=\"badge test-delivery\">Test</span> <span class=\"badge\">Failed</span>"
    )
    const [deliveryId] = deliveryIdsOf(after)
    expect(deliveryIdsOf(after)).toHaveLength(1)
    expect(loggedStatuses(after)).toEqual(["500"])
    expect(after.body).toContain("<pre class=\"body-excerpt response-excerpt\">not &lt;today&gt;</pre>")

    // The request as the receiver got it: its webhook-id, webhook-timestamp and body.
    const webhookId = /<dt>webhook-id<\/dt><dd><code>([^<]+)<\/code>/.exec(after.body)![1]!
    const sent = receiver.requests().filter((request) => request.webhookId === webhookId)
    expect(sent).toHaveLength(1)
    expect(sent[0]!.answeredStatus).toBe(500)
    expect(after.body).toContain(`<code>${sent[0]!.headers["webhook-timestamp"]}</code>`)
    const body = /<pre class="body-excerpt"[^>]*>([^<]*)<\/pre>/.exec(after.body)![1]!
    expect(unescape(body)).toBe(sent[0]!.rawBody)
    expect(sent[0]!.rawBody).toContain("\"type\":\"webhook.test\"")

    // No worker sends a test again, and its failure leaves the endpoint active.
    await dispatch()
    expect(receiver.requests().filter((request) => request.webhookId === webhookId)).toHaveLength(1)
    const still = await b.get(path)
    expect(loggedStatuses(still)).toEqual(["500"])
    expect(still.body).toContain("<span class=\"badge\">Enabled</span>")

    // Redelivering it sends the same message again at once, and the log shows both attempts.
    answer = 204
    const redelivered = await b.post(`${path}/deliveries/${deliveryId}/redeliver`, { csrf })
    expect(redelivered.status).toBe(303)
    const done = await b.get(path)
    expect(done.body).toMatch(/The test event was answered 204 in \d+ ms\./)
    expect(loggedStatuses(done)).toEqual(["204", "500"])
    expect(done.body).toContain("<span class=\"badge test-delivery\">Test</span> <span class=\"badge\">Delivered</span>")
    const again = receiver.requests().filter((request) => request.webhookId === webhookId)
    expect(again).toHaveLength(2)
    expect(again[1]!.rawBody).toBe(sent[0]!.rawBody)

    // A second test is a delivery of its own.
    await b.post(`${path}/test`, { csrf })
    expect(deliveryIdsOf(await b.get(path))).toHaveLength(2)
  })

  it("logs each attempt with its request and answer, and redelivers a delivery that failed", async () => {
    const { b, csrf, organization, path } = await withEndpoint()
    const key = await server.createApiKey(organization)
    answer = 500
    const created = await call(server, "POST", `${api()}/subscribers`, { key, json: { email: freshAddress("hooked") } })
    expect(created.status, created.text).toBe(201)
    await dispatch()
    const failed = await b.get(path)
    const [deliveryId] = deliveryIdsOf(failed)
    expect(deliveryId).toBeDefined()
    expect(loggedStatuses(failed)).toEqual(["500"])
    expect(failed.body).toContain("<code>subscriber.created</code> <span class=\"badge\">Pending</span>")
    expect(failed.body).toContain("answered 500")
    expect(failed.body).toContain("<pre class=\"body-excerpt response-excerpt\">not &lt;today&gt;</pre>")
    expect(failed.body).toContain("<dt>webhook-id</dt>")
    expect(failed.body).toMatch(/<dt>webhook-timestamp<\/dt><dd><code>\d+<\/code>/)
    const webhookId = /<dt>webhook-id<\/dt><dd><code>([^<]+)<\/code>/.exec(failed.body)![1]!
    const sent = receiver.requests().find((request) => request.webhookId === webhookId)!
    expect(sent.answeredStatus).toBe(500)
    // The request's body, as the receiver got it.
    const body = /<pre class="body-excerpt"[^>]*>([^<]*)<\/pre>/.exec(failed.body)![1]!
    expect(unescape(body)).toBe(sent.rawBody)
    expect(sent.rawBody).toContain("\"type\":\"subscriber.created\"")
    expect(failed.body).toContain(`<code>${sent.headers["webhook-timestamp"]}</code>`)

    answer = 200
    const redelivered = await b.post(`${path}/deliveries/${deliveryId}/redeliver`, { csrf })
    expect(redelivered.status).toBe(303)
    expect((await b.get(path)).body).toContain("The delivery of subscriber.created goes out again")
    await dispatch()
    const succeeded = await b.get(path)
    expect(loggedStatuses(succeeded)).toEqual(["200", "500"])
    expect(succeeded.body).toContain("<code>subscriber.created</code> <span class=\"badge\">Delivered</span>")
    expect(succeeded.body).toContain("2 attempts: 1 succeeded, 1 failed; 0 deliveries waiting.")

    // A delivery id that is not one answers the page that says so.
    expect((await b.post(`${path}/deliveries/not-an-id/redeliver`, { csrf })).status).toBe(404)
    expect((await b.post(`${path}/deliveries/00000000-0000-4000-8000-000000000000/redeliver`, { csrf })).status).toBe(404)
    expect((await b.get(`${path}?cursor=not-a-cursor`)).status).toBe(400)
  })

  it("pages the delivery log, newest first", async () => {
    const { b, organization, path } = await withEndpoint()
    const key = await server.createApiKey(organization)
    answer = 204
    for (let i = 0; i < 21; i++) {
      expect((await call(server, "POST", `${api()}/subscribers`, { key, json: { email: freshAddress("paged") } })).status).toBe(201)
    }
    await dispatch()
    const first = await b.get(path)
    expect(deliveryIdsOf(first)).toHaveLength(20)
    const older = /href="([^"]+\?cursor=[^"#]+)#log">Older deliveries/.exec(first.body)![1]!
    const second = await b.get(unescape(older))
    expect(second.status).toBe(200)
    expect(deliveryIdsOf(second)).toHaveLength(1)
    expect(deliveryIdsOf(first)).not.toContain(deliveryIdsOf(second)[0])
    expect(second.body).toContain("Newest deliveries")
  })

  it("deletes an endpoint after a confirmation", async () => {
    const { b, base, csrf, path } = await withEndpoint()
    const confirm = await b.get(`${path}/delete`)
    expect(unescape(confirm.body)).toContain(`Delete the endpoint ${receiver.url}?`)
    const deleted = await b.post(`${path}/delete`, { csrf })
    expect(deleted.status).toBe(303)
    expect(deleted.headers.get("location")).toBe(`${base}/webhooks`)
    const list = await b.get(`${base}/webhooks`)
    expect(list.body).toContain("was deleted.")
    expect(list.body).toContain("No webhook endpoints yet.")
    expect((await b.get(path)).status).toBe(404)
  })

  it("answers another organization's endpoint and delivery as not there, and changes nothing of theirs", async () => {
    const theirs = await withEndpoint()
    const key = await server.createApiKey(theirs.organization)
    answer = 500
    await call(server, "POST", `${api()}/subscribers`, { key, json: { email: freshAddress("theirs") } })
    await dispatch()
    const [deliveryId] = deliveryIdsOf(await theirs.b.get(theirs.path))
    const mine = await withEndpoint()
    const foreignPath = `${mine.base}/webhooks/${theirs.id}`
    expect((await mine.b.get(foreignPath)).status).toBe(404)
    expect((await mine.b.post(`${foreignPath}/delete`, { csrf: mine.csrf })).status).toBe(404)
    expect((await mine.b.post(`${foreignPath}/rotate`, { csrf: mine.csrf })).status).toBe(404)
    expect((await mine.b.post(`${foreignPath}/deliveries/${deliveryId}/redeliver`, { csrf: mine.csrf })).status).toBe(404)
    // Their delivery under my own endpoint is not found either.
    const underMine = await mine.b.post(`${mine.path}/deliveries/${deliveryId}/redeliver`, { csrf: mine.csrf })
    expect(underMine.status).toBe(404)
    expect(underMine.body).not.toContain("goes out again")
    expect((await theirs.b.get(theirs.path)).status).toBe(200)
    expect((await mine.b.get(`${mine.base}/webhooks/not-an-id`)).status).toBe(404)
  })

  it("hides the screen from a member and refuses them by typed address and by post", async () => {
    const owner = await withEndpoint()
    const member = await personIn(server, { role: "member" })
    await server.addMember(owner.organization.id, member.user, "member")
    const start = await member.b.get(owner.base)
    expect(start.body).not.toContain(`${owner.base}/webhooks`)
    expect(start.body).toContain(`${owner.base}/email`)
    const typed = await member.b.get(`${owner.base}/webhooks`)
    expect(typed.status).toBe(403)
    expect(typed.body).toContain("Your role in this organization does not allow this.")
    const csrf = /<meta name="csrf-token" content="([^"]+)"/.exec(start.body)![1]!
    const create = await member.b.post(`${owner.base}/webhooks`, { csrf, url: receiver.url, events: ["subscriber.created"] })
    expect(create.status).toBe(403)
    expect(create.body).not.toContain("whsec_")
    expect((await member.b.post(`${owner.path}/rotate`, { csrf })).status).toBe(403)
  })

  it("changes nothing for a forged post without the form token", async () => {
    const { b, base, path } = await withEndpoint()
    expect((await b.post(`${base}/webhooks`, { url: receiver.url, events: ["subscriber.created"] })).status).toBe(403)
    expect((await b.post(`${path}/delete`, { csrf: "wrong" })).status).toBe(403)
    expect((await b.post(`${path}/rotate`, {})).status).toBe(403)
    expect((await b.get(path)).status).toBe(200)
  })
})
