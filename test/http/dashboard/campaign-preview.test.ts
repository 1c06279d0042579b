/**
 * The campaign composer's preview and test send through the running server, in both deployments:
 * the campaign's own content or its chosen template rendered into a frame with a strict policy of
 * its own (as the template editor's), for a subscriber found by email or a sample one and with the
 * campaign's data; a Liquid problem told in the frame at its part, line and column; the saved
 * campaign's content sent to the signed-in person, which reaches a local server that speaks
 * Resend's API; the rendered subject and text body beside the frame (as JSON for the page's script,
 * and on the page), and the addresses offered for the preview's subscriber; the refusals (not a
 * subscriber, another organization's campaign, no form token).
 */
import { Layer, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeResendMailer } from "../../../adapters/resend/index.js"
import { call, freshAddress, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../../support/http-server.js"
import { type ResendApi, startResendApi } from "../../support/resend-api.js"
import { deliverDue } from "../../support/worker-steps.js"
import { personIn, unescape } from "./dashboard-browser.js"

const deployments = ["reference", "overview"] as const
const idOf = (location: string | null) => /\/campaigns\/([0-9a-f-]{36})$/.exec(location ?? "")![1]!

let resend: ResendApi
beforeAll(async () => {
  resend = await startResendApi()
})
afterAll(() => resend.close())

describe.each(deployments)("the campaign composer's preview and test send in the %s deployment", (deployment) => {
  let server: TestHttpServer
  beforeAll(async () => {
    const mailer = makeResendMailer({
      apiKey: Redacted.make(resend.apiKey),
      baseUrl: resend.url,
      from: "Roster <noreply@roster.test>",
      retry: { times: 0 }
    })
    server = await startHttpServer({ form: deployment, adapters: Layer.merge(mailer, UnlimitedRateLimiterLive) })
  })
  afterAll(() => server.close())
  const api = () => deployment === "overview" ? "/v1" : "/api/v1"
  const dataOf = (body: { readonly data?: Record<string, unknown> } & Record<string, unknown>) => body.data ?? body

  const fields = (csrf: string, more: Record<string, string> = {}) => ({
    csrf,
    name: "Spring issue",
    kind: "marketing",
    content: "own",
    subject: "Spring for {{ subscriber.first_name }}",
    html: "<h1 style=\"color: green\">Hi {{ subscriber.metadata.name }}</h1><script>parent.document.title = 'x'</script>",
    text: "",
    audience: "tags",
    scheduled_at: "",
    intent: "save",
    ...more
  })

  it("renders the campaign's own content into a sandboxed frame, for a subscriber or a sample one", async () => {
    const { b, base, csrf, organization } = await personIn(server)
    const key = await server.createApiKey(organization)
    const email = freshAddress("reader")
    await call(server, "POST", `${api()}/subscribers`, { key, json: { email, metadata: { name: "<b>Bea</b>" } } })

    const fresh = await b.get(`${base}/campaigns/new`)
    expect(fresh.headers.get("content-security-policy")).toContain("frame-src 'self'")
    expect(fresh.body).toContain(`formaction="${base}/campaigns/preview" formtarget="campaign-preview-frame"`)
    expect(fresh.body).toMatch(/<iframe[^>]* name="campaign-preview-frame"[^>]* sandbox /)
    expect(fresh.body).toContain("Save the draft to send a test of it.")

    const frame = await b.post(`${base}/campaigns/preview`, fields(csrf, { preview_email: email }))
    expect(frame.status).toBe(200)
    const policy = frame.headers.get("content-security-policy") ?? ""
    expect(policy).toContain("sandbox")
    expect(policy).toContain("default-src 'none'")
    expect(policy).not.toContain("script-src")
    expect(frame.body).toContain("<h1 style=\"color: green\">Hi &lt;b&gt;Bea&lt;/b&gt;</h1>")
    const sample = await b.post(`${base}/campaigns/preview`, fields(csrf, { html: "<p>{{ subscriber.first_name }}</p>" }))
    expect(sample.body).toBe("<p>Jane</p>")

    // Nothing to render: said so in the frame, in the person's words.
    const noSubject = await b.post(`${base}/campaigns/preview`, fields(csrf, { subject: "" }))
    expect(noSubject.body).toContain("Give the campaign a subject and a body, or choose a template, to see it.")
    const textOnly = await b.post(`${base}/campaigns/preview`, fields(csrf, { html: "", text: "Plain" }))
    expect(textOnly.body).toContain("No HTML body.")
    const noTemplate = await b.post(`${base}/campaigns/preview`, fields(csrf, { content: "template", template_id: "" }))
    expect(noTemplate.body).toContain("Choose a template, or write its own content.")
    // Without the form token the frame is refused like any form.
    const { csrf: _csrf, ...unsigned } = fields(csrf)
    expect((await b.post(`${base}/campaigns/preview`, unsigned)).status).toBe(403)
  })

  it("shows the rendered subject and text body beside the frame, for a subscriber or a sample one, and offers addresses", async () => {
    const { b, base, csrf, organization } = await personIn(server)
    const key = await server.createApiKey(organization)
    const email = freshAddress("reader")
    await call(server, "POST", `${api()}/subscribers`, { key, json: { email, metadata: { name: "<b>Bea</b>" } } })
    const asJson = { accept: "application/json" }
    const own = { subject: "Spring for {{ subscriber.metadata.name }}", text: "Hello {{ subscriber.email }}" }

    // The page's script asks the preview route for JSON: the subject and text body shown beside the frame.
    const chosen = await b.post(`${base}/campaigns/preview`, fields(csrf, { ...own, preview_email: email }), asJson)
    expect(chosen.status).toBe(200)
    expect(chosen.headers.get("content-type")).toContain("application/json")
    expect(JSON.parse(chosen.body).preview).toEqual({
      note: `Shown for ${email}.`,
      subject: "Spring for <b>Bea</b>",
      text: `Hello ${email}`,
      hasHtml: true,
      empty: ""
    })
    const sample = await b.post(`${base}/campaigns/preview`, fields(csrf, own), asJson)
    expect(JSON.parse(sample.body).preview).toMatchObject({
      note: "Shown for a sample subscriber (jane@example.com).",
      subject: "Spring for",
      text: "Hello jane@example.com",
      empty: "These variables had no value: subscriber.metadata.name."
    })
    const nobody = await b.post(`${base}/campaigns/preview`, fields(csrf, { ...own, preview_email: "nobody@example.com" }), asJson)
    expect(JSON.parse(nobody.body).preview.note).toBe(
      "No subscriber of this organization has the address nobody@example.com; the preview shows a sample subscriber."
    )
    // Nothing to render, or a problem: said, with no subject or text.
    const noSubject = await b.post(`${base}/campaigns/preview`, fields(csrf, { subject: "" }), asJson)
    expect(JSON.parse(noSubject.body).preview).toEqual({ note: "Give the campaign a subject and a body, or choose a template, to see it." })
    const broken = await b.post(`${base}/campaigns/preview`, fields(csrf, { text: "{% iff x %}" }), asJson)
    expect(JSON.parse(broken.body).preview.note).toContain("Fix the problems in the template to see the preview. Text body: Line 1, column 1:")
    expect(JSON.parse(broken.body).preview.subject).toBeUndefined()
    // Without the form token, refused like the frame.
    const { csrf: _csrf, ...unsigned } = fields(csrf)
    expect((await b.post(`${base}/campaigns/preview`, unsigned, asJson)).status).toBe(403)

    // Without the script, the page shows a saved draft's subject and text for the address it names.
    const made = await b.post(`${base}/campaigns/new`, fields(csrf, own))
    expect(made.status, made.body).toBe(303)
    const id = idOf(made.headers.get("location"))
    const forBea = await b.get(`${base}/campaigns/${id}?email=${encodeURIComponent(email)}`)
    expect(forBea.body).toContain(`<p class="note" id="campaign-preview-note">Shown for ${email}.</p>`)
    expect(forBea.body).toContain("<dd id=\"campaign-preview-subject\">Spring for &lt;b&gt;Bea&lt;/b&gt;</dd>")
    expect(forBea.body).toContain(`<pre id="campaign-preview-text" class="preview-text" data-none="No text body.">Hello ${email}</pre>`)
    expect(forBea.body).toContain(`src="${base}/campaigns/${id}/preview?email=${encodeURIComponent(email)}"`)
    const forSample = await b.get(`${base}/campaigns/${id}`)
    expect(forSample.body).toContain("<dd id=\"campaign-preview-subject\">Spring for</dd>")
    expect(forSample.body).toContain(">Hello jane@example.com</pre>")
    // The saved draft's route answers JSON too, for the form as it stands.
    const saved = await b.post(`${base}/campaigns/${id}/preview`, fields(csrf, { ...own, text: "" }), asJson)
    expect(JSON.parse(saved.body).preview).toMatchObject({ subject: "Spring for", text: null, hasHtml: true })
    const other = await personIn(server)
    const stranger = await other.b.post(`${other.base}/campaigns/${id}/preview`, fields(other.csrf), asJson)
    expect(stranger.status).toBe(404)
    expect(JSON.parse(stranger.body).error).toContain("It no longer exists")
    const unknown = await b.post(`${base}/campaigns/not-a-campaign/preview`, fields(csrf), asJson)
    expect(unknown.status).toBe(404)

    // The "preview for" field is offered the organization's addresses, by the same search as the template editor's.
    const fresh = await b.get(`${base}/campaigns/new`)
    expect(fresh.body).toContain(`list="campaign-subscribers"`)
    expect(fresh.body).toContain(`data-search="${base}/campaigns/subscribers"`)
    expect(fresh.body).toContain("<datalist id=\"campaign-subscribers\"></datalist>")
    const search = await b.get(`${base}/campaigns/subscribers?q=${encodeURIComponent(email.slice(0, 8))}`)
    expect(search.status).toBe(200)
    expect(JSON.parse(search.body)).toEqual({ emails: [email] })
    expect(JSON.parse((await other.b.get(`${other.base}/campaigns/subscribers?q=${encodeURIComponent(email.slice(0, 8))}`)).body))
      .toEqual({ emails: [] })
    const tooLong = await b.get(`${base}/campaigns/subscribers?q=${"a".repeat(400)}`)
    expect(tooLong.status).toBe(400)
    expect(JSON.parse(tooLong.body).error).toBeTypeOf("string")
  })

  it("shows the subject and text in German too", async () => {
    const { b, base, csrf } = await personIn(server)
    await b.get("/app/locale/de?back=/app")
    const page = await b.get(`${base}/campaigns/new`)
    expect(page.body).toContain("Betreff, HTML-Inhalt und Text-Inhalt, wie das Formular jetzt steht")
    expect(page.body).toContain("Tippen Sie eine Adresse, um einen Abonnenten zu wählen")
    const shown = await b.post(`${base}/campaigns/preview`, fields(csrf, { text: "Hallo" }), { accept: "application/json" })
    expect(JSON.parse(shown.body).preview).toMatchObject({
      note: "Gezeigt für einen Beispiel-Abonnenten (jane@example.com).",
      text: "Hallo"
    })
  })

  it("tells a Liquid problem in the frame at its part, line and column, in German too", async () => {
    const { b, base, csrf } = await personIn(server)
    const broken = await b.post(`${base}/campaigns/preview`, fields(csrf, { html: "<p>\n{% iff x %}</p>" }))
    expect(broken.status).toBe(200)
    expect(unescape(broken.body)).toContain("Fix the problems in the template to see the preview. HTML body: Line 2, column 1:")
    await b.get("/app/locale/de?back=/app")
    const german = await b.post(`${base}/campaigns/preview`, fields(csrf, { html: "<p>\n{% iff x %}</p>" }))
    expect(unescape(german.body)).toContain("HTML-Inhalt: Zeile 2, Spalte 1:")
  })

  it("escapes what a problem quotes of the template in the frame's note", async () => {
    const { b, base, csrf } = await personIn(server)
    const broken = await b.post(`${base}/campaigns/preview`, fields(csrf, { html: "{% for <b> in x %}{% endfor %}" }))
    expect(broken.status).toBe(200)
    expect(broken.body).toContain("{% for &lt;b&gt; in x %}")
    expect(broken.body).not.toContain("<b>")
    expect(broken.body).toMatch(/^<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8" \/><title>[^<]+<\/title><\/head><body><p>[^<]+<\/p><\/body><\/html>$/)
  })

  it("previews a saved draft's chosen template with the campaign's data, and the form as it stands", async () => {
    const { b, base, csrf, organization } = await personIn(server)
    const key = await server.createApiKey(organization)
    const template = await call(server, "POST", `${api()}/templates`, {
      key,
      json: { name: "Issue", subject: "Issue {{ data.number }}", html: "<p>Issue {{ data.number }} for {{ subscriber.email }}</p>" }
    })
    expect(template.status, template.text).toBe(201)
    const templateId = dataOf(template.body).id as string
    const campaign = await call(server, "POST", `${api()}/campaigns`, {
      key,
      json: { name: "Issue 7", template_id: templateId, audience: { tag_ids: [] }, data: { number: 7 } }
    })
    expect(campaign.status, campaign.text).toBe(201)
    // The draft as the list links it, whichever wire form made it.
    const id = /\/campaigns\/([0-9a-f-]{36})"/.exec((await b.get(`${base}/campaigns`)).body)![1]!

    const page = await b.get(`${base}/campaigns/${id}`)
    expect(page.body).toContain(`src="${base}/campaigns/${id}/preview"`)
    expect(page.body).toContain(`formaction="${base}/campaigns/${id}/preview"`)
    const saved = await b.get(`${base}/campaigns/${id}/preview`)
    expect(saved.body).toBe("<p>Issue 7 for jane@example.com</p>")
    expect(saved.headers.get("content-security-policy")).toContain("sandbox")
    // The form as it stands (its own content now), with the campaign's data.
    const changed = await b.post(`${base}/campaigns/${id}/preview`, fields(csrf, { html: "<p>Number {{ data.number }}</p>" }))
    expect(changed.body).toBe("<p>Number 7</p>")

    // Another organization's campaign is not found, in the frame too.
    const other = await personIn(server)
    expect((await other.b.get(`${other.base}/campaigns/${id}/preview`)).body).toContain("It no longer exists")
    expect((await other.b.get(`${other.base}/campaigns/${id}/preview`)).body).not.toContain("Issue 7")
    const stranger = await other.b.post(`${other.base}/campaigns/${id}/test`, { csrf: other.csrf })
    expect(stranger.status).toBe(404)
  })

  it("sends the saved campaign's content as a test to the signed-in person, which reaches the provider", async () => {
    const { b, base, csrf, organization, user } = await personIn(server)
    const made = await b.post(`${base}/campaigns/new`, fields(csrf, {
      subject: "Spring for {{ subscriber.metadata.name }}",
      html: "<p>Hello {{ subscriber.email }}</p>"
    }))
    expect(made.status, made.body).toBe(303)
    const id = idOf(made.headers.get("location"))
    const page = await b.get(`${base}/campaigns/${id}`)
    expect(page.body).toContain(`action="${base}/campaigns/${id}/test"`)

    // Not a subscriber yet: told so, nothing sent.
    const refused = await b.post(`${base}/campaigns/${id}/test`, { csrf })
    expect(refused.status).toBe(303)
    const told = await b.get(`${base}/campaigns/${id}`)
    expect(unescape(told.body)).toContain(`Test emails go to you as a subscriber of this organization, and ${user.email} is not one.`)

    const key = await server.createApiKey(organization)
    const subscriber = await call(server, "POST", `${api()}/subscribers`, { key, json: { email: user.email, metadata: { name: "Me" } } })
    expect(subscriber.status, subscriber.text).toBe(201)
    const sent = await b.post(`${base}/campaigns/${id}/test`, { csrf })
    expect(sent.status).toBe(303)
    expect(sent.headers.get("location")).toBe(`${base}/campaigns/${id}`)
    expect((await b.get(`${base}/campaigns/${id}`)).body).toContain(`A test of Spring issue is on its way to ${user.email}.`)
    expect(await server.run(deliverDue())).toBe(1)
    const mail = resend.accepted().filter((m) => m.to.toLowerCase() === user.email.toLowerCase())
    expect(mail).toHaveLength(1)
    expect(mail[0]).toMatchObject({ subject: "Spring for Me" })
    expect(mail[0]!.html).toContain(`<p>Hello ${user.email}</p>`)
    // A test is no send: the campaign is still a draft.
    expect((await b.get(`${base}/campaigns/${id}`)).body).toContain(">Draft</span>")
    // Without the form token nothing is sent.
    expect((await b.post(`${base}/campaigns/${id}/test`, {})).status).toBe(403)
  })
})
