/**
 * The dashboard's email triggers screen through the running server, in both deployments: a
 * trigger created with refusals beside their fields on the way (in German too), listed with its
 * event, wait and state, changed, disabled and enabled, deleted after a confirmation; the use
 * case's refusal of a deleted tag; another organization's trigger; a form without the token.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../../support/http-server.js"
import { fieldError, personIn } from "./dashboard-browser.js"

const deployments = ["reference", "overview"] as const

const triggerIdIn = (location: string | null) => /\/triggers\/([0-9a-f-]{36})$/.exec(location ?? "")?.[1] ?? ""

describe.each(deployments)("the triggers screen in the %s deployment", (deployment) => {
  let server: TestHttpServer
  beforeAll(async () => {
    server = await startHttpServer({ form: deployment, adapters: UnlimitedRateLimiterLive })
  })
  afterAll(() => server.close())
  const api = () => deployment === "overview" ? "/v1" : "/api/v1"
  // The overview form wraps answers in `data`; a trigger of the reference form has a `data` field of its own.
  const data = (body: Record<string, unknown>) => (deployment === "overview" ? body.data : body) as Record<string, unknown>

  const setUp = async () => {
    const person = await personIn(server)
    const key = await server.createApiKey(person.organization)
    const template = await call(server, "POST", `${api()}/templates`, { key, json: { name: "Welcome", subject: "Hi", text: "Hello" } })
    expect(template.status, template.text).toBe(201)
    const tag = await call(server, "POST", `${api()}/tags`, { key, json: { name: "Readers" } })
    expect(tag.status, tag.text).toBe(201)
    return { ...person, key, templateId: data(template.body).id as string, tagId: data(tag.body).id as string }
  }

  it("creates a trigger after refusals beside its fields, lists it, changes it, disables and enables it", async () => {
    const { b, base, csrf, key, templateId, tagId } = await setUp()
    const empty = await b.get(`${base}/triggers`)
    expect(empty.status).toBe(200)
    expect(empty.body).toContain("No triggers yet.")
    expect(empty.body).toContain(`<a href="${base}/triggers" aria-current="page">Triggers</a>`)
    expect((await b.get(`${base}/triggers/new`)).body).toContain(">Welcome</option>")

    const refused = await b.post(`${base}/triggers/new`, {
      csrf, name: "", event: "tag.subscribed", tag_id: tagId, template_id: "", segment_id: "", kind: "marketing", delay_amount: "31", delay_unit: "days"
    })
    expect(refused.status).toBe(400)
    expect(fieldError(refused, "trigger-name")).toBe("Give the trigger a name of at most 200 characters, on one line.")
    expect(fieldError(refused, "trigger-template")).toBe("Choose a template.")
    expect(fieldError(refused, "trigger-delay")).toBe("Give a whole number from 0 up to 30 days.")
    expect(refused.body).toContain(`value="${tagId}" selected`)

    const made = await b.post(`${base}/triggers/new`, {
      csrf, name: "Welcome <new>", event: "tag.subscribed", tag_id: tagId, template_id: templateId, segment_id: "", kind: "marketing", delay_amount: "2", delay_unit: "hours"
    })
    expect(made.status, made.body).toBe(303)
    const id = triggerIdIn(made.headers.get("location"))
    const shown = await b.get(`${base}/triggers/${id}`)
    expect(shown.body).toContain("The trigger Welcome &lt;new&gt; was created.")
    expect(shown.body).toContain("value=\"2\"")
    expect(shown.body).toContain("<option value=\"hours\" selected>")

    const got = await call(server, "GET", `${api()}/email-triggers/${id}`, { key })
    expect(got.status, got.text).toBe(200)
    const stored = data(got.body)
    expect(stored).toMatchObject({ name: "Welcome <new>", event: "tag.subscribed", tag_id: tagId, template_id: templateId, delay_seconds: 7_200, status: "active" })

    const list = await b.get(`${base}/triggers`)
    const row = list.body.split("<tr>").find((r) => r.includes(`/triggers/${id}"`)) ?? ""
    expect(row).toContain("A subscriber is given a tag <span class=\"badge\">Readers</span> · after 2 hours")
    expect(row).toContain("<span class=\"badge\">Enabled</span>")

    const disabled = await b.post(`${base}/triggers/${id}/status`, { csrf, status: "paused", back: "list" })
    expect(disabled.status).toBe(303)
    expect(disabled.headers.get("location")).toBe(`${base}/triggers`)
    const afterDisable = await b.get(`${base}/triggers`)
    expect(afterDisable.body).toContain("The trigger Welcome &lt;new&gt; is disabled")
    expect(afterDisable.body).toContain("<span class=\"badge\">Disabled</span>")
    expect(data((await call(server, "GET", `${api()}/email-triggers/${id}`, { key })).body).status).toBe("paused")
    const enabled = await b.post(`${base}/triggers/${id}/status`, { csrf, status: "active" })
    expect(enabled.headers.get("location")).toBe(`${base}/triggers/${id}`)
    expect(data((await call(server, "GET", `${api()}/email-triggers/${id}`, { key })).body).status).toBe("active")

    // A change refused beside its field; nothing is changed.
    const wrong = await b.post(`${base}/triggers/${id}`, {
      csrf, name: "Welcome", event: "tag.subscribed", tag_id: tagId, template_id: templateId, segment_id: "", kind: "marketing", delay_amount: "-1", delay_unit: "minutes"
    })
    expect(wrong.status).toBe(400)
    expect(fieldError(wrong, "trigger-delay")).toBe("Give a whole number from 0 up to 30 days.")
    expect(data((await call(server, "GET", `${api()}/email-triggers/${id}`, { key })).body).delay_seconds).toBe(7_200)

    // Moving to another event drops the tag; the wait goes to nothing.
    const changed = await b.post(`${base}/triggers/${id}`, {
      csrf, name: "Welcome", event: "subscriber.created", tag_id: tagId, template_id: templateId, segment_id: "", kind: "transactional", delay_amount: "0", delay_unit: "minutes"
    })
    expect(changed.status).toBe(303)
    const after = data((await call(server, "GET", `${api()}/email-triggers/${id}`, { key })).body)
    expect(after).toMatchObject({ name: "Welcome", event: "subscriber.created", tag_id: null, kind: "transactional", delay_seconds: 0 })
    expect((await b.get(`${base}/triggers`)).body).toContain("A subscriber is created · at once")
  })

  it("shows the use case's refusal of a tag that was deleted, and refusals in German", async () => {
    const { b, base, csrf, key, templateId, tagId } = await setUp()
    const removed = await call(server, "DELETE", `${api()}/tags/${tagId}`, { key })
    expect(removed.status, removed.text).toBeLessThan(300)
    const refused = await b.post(`${base}/triggers/new`, {
      csrf, name: "Tagged", event: "tag.subscribed", tag_id: tagId, template_id: templateId, segment_id: "", kind: "marketing", delay_amount: "0", delay_unit: "minutes"
    })
    expect(refused.status).toBe(404)
    expect(fieldError(refused, "trigger-tag")).toBeDefined()
    await b.get("/app/locale/de?back=/app")
    const german = await b.post(`${base}/triggers/new`, { csrf, name: "", event: "subscriber.created", template_id: "", delay_amount: "x", delay_unit: "days" })
    expect(german.status).toBe(400)
    expect(fieldError(german, "trigger-name")).toBe("Geben Sie dem Auslöser einen Namen mit höchstens 200 Zeichen, in einer Zeile.")
    expect(fieldError(german, "trigger-delay")).toBe("Geben Sie eine ganze Zahl von 0 bis zu 30 Tagen an.")
  })

  it("deletes a trigger after a confirmation; another organization's is not there; a form without the token changes nothing", async () => {
    const { b, base, csrf, key, templateId } = await setUp()
    const made = await b.post(`${base}/triggers/new`, {
      csrf, name: "Bye", event: "subscriber.created", template_id: templateId, segment_id: "", kind: "marketing", delay_amount: "0", delay_unit: "minutes"
    })
    const id = triggerIdIn(made.headers.get("location"))
    const other = await personIn(server)
    expect((await other.b.get(`${other.base}/triggers/${id}`)).status).toBe(404)
    expect((await other.b.post(`${other.base}/triggers/${id}/delete`, { csrf: other.csrf })).status).toBe(404)
    expect((await b.get(`${base}/triggers/nope`)).status).toBe(404)
    expect((await b.post(`${base}/triggers/${id}/status`, { status: "paused" })).status).toBe(403)
    expect(data((await call(server, "GET", `${api()}/email-triggers/${id}`, { key })).body).status).toBe("active")

    const confirm = await b.get(`${base}/triggers/${id}/delete`)
    expect(confirm.body).toContain("Delete the trigger Bye?")
    const deleted = await b.post(`${base}/triggers/${id}/delete`, { csrf })
    expect(deleted.status).toBe(303)
    expect((await b.get(`${base}/triggers`)).body).toContain("The trigger Bye was deleted.")
    expect((await call(server, "GET", `${api()}/email-triggers/${id}`, { key })).status).toBe(404)
  })
})
