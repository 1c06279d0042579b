/**
 * The dashboard's templates screen through the running server, in both deployments: the list
 * with each template's bodies and when it last changed; creating and changing a template, a draft
 * with a Liquid problem refused with the problem at its line and column (in German too) and the
 * fields' own refusals; the check route's JSON (problems, variables, the subject and text rendered
 * for a subscriber found by email or a sample one); the HTML body rendered into a frame with a
 * strict policy of its own; a test send to the signed-in person that reaches a local server which
 * speaks Resend's API; deleting after a confirmation; a member's rights; another organization's
 * template; and forms posted without the session's token.
 */
import { OrganizationId } from "@roster/domain"
import { Layer, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeResendMailer } from "../../../adapters/resend/index.js"
import { givenSubscriber } from "../../contract/fixtures.js"
import { call, freshAddress, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../../support/http-server.js"
import { type ResendApi, startResendApi } from "../../support/resend-api.js"
import { deliverDue } from "../../support/worker-steps.js"
import { csrfOf, ownerWithOrganization, personIn, unescape } from "./dashboard-browser.js"

const deployments = ["reference", "overview"] as const

/** The id in a redirect to a template's page. */
const idOf = (location: string | null) => /\/templates\/([0-9a-f-]{36})$/.exec(location ?? "")![1]!

/** A part's problem as the page shows it beside the part. */
const problemOf = (body: string, part: string) =>
  new RegExp(`<p class="field-error" id="tpl-${part}-error">([^<]*)</p>`).exec(body)?.[1]

let resend: ResendApi
beforeAll(async () => {
  resend = await startResendApi()
})
afterAll(() => resend.close())

describe.each(deployments)("the templates screen in the %s deployment", (deployment) => {
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

  it("creates a template, lists it with its bodies and when it changed, and edits it", async () => {
    const { b, base, csrf, organization } = await personIn(server)
    const empty = await b.get(`${base}/templates`)
    expect(empty.status).toBe(200)
    expect(empty.body).toContain("No templates yet.")
    expect(empty.body).toContain(`<a href="${base}/templates" aria-current="page">Templates</a>`)

    const blank = await b.get(`${base}/templates/new`)
    expect(blank.status).toBe(200)
    expect(blank.headers.get("content-security-policy")).toContain("frame-src 'self'")
    expect(blank.body).toContain("name=\"template-preview-frame\"")
    expect(blank.body).toMatch(/<iframe[^>]* sandbox /)

    const made = await b.post(`${base}/templates/new`, {
      csrf,
      name: "Welcome <new>",
      subject: "Hello {{ subscriber.first_name }}",
      html: "<p>Hi {{ subscriber.email }}</p>\r\n<p>{{ subscriber.metadata.plan }}</p>",
      text: ""
    })
    expect(made.status, made.body).toBe(303)
    const id = idOf(made.headers.get("location"))
    const edit = await b.get(`${base}/templates/${id}`)
    expect(edit.body).toContain("The template Welcome &lt;new&gt; was created.")
    expect(edit.body).toContain("<code>subscriber.first_name</code>")
    expect(edit.body).toContain("<code>subscriber.metadata.plan</code>")
    expect(edit.body).toContain(`src="${base}/templates/${id}/preview"`)
    // The sample subscriber's subject, rendered by the server.
    expect(edit.body).toContain("<dd id=\"tpl-preview-subject\">Hello Jane</dd>")

    // The API sees what the dashboard saved, line ends as `\n` and the empty text body as none.
    const key = await server.createApiKey(organization)
    const read = await call(server, "GET", `${api()}/templates/${id}`, { key })
    expect(read.status, read.text).toBe(200)
    expect(read.body.data ?? read.body).toMatchObject({
      name: "Welcome <new>",
      html: "<p>Hi {{ subscriber.email }}</p>\n<p>{{ subscriber.metadata.plan }}</p>",
      text: null
    })

    const saved = await b.post(`${base}/templates/${id}`, { csrf, name: "Welcome", subject: "Hi", html: "", text: "Plain {{ organization.name }}" })
    expect(saved.status).toBe(303)
    const list = await b.get(`${base}/templates`)
    const row = list.body.split("<tr>").find((r) => r.includes(`/templates/${id}"`)) ?? ""
    expect(row).toContain(">Welcome</a>")
    expect(row).toContain("<td>Text</td>")
    expect(row).toMatch(/<time datetime="\d{4}-\d\d-\d\dT[^"]+">\d{4}-\d\d-\d\d \d\d:\d\d<\/time>/)
  })

  it("refuses a draft with a Liquid problem, naming the part, its line and column, and keeps what was typed", async () => {
    const { b, base, csrf } = await ownerWithOrganization(server)
    const html = "<p>Hello</p>\n<p>{% iff subscriber.first_name %}x{% endif %}</p>"
    const refused = await b.post(`${base}/templates/new`, { csrf, name: "Broken", subject: "Hi {{ subscriber.email | nope }}", html, text: "" })
    expect(refused.status).toBe(400)
    expect(unescape(problemOf(refused.body, "html") ?? "")).toBe("Line 2, column 4: there is no tag iff (Liquid: tag \"iff\" not found)")
    expect(unescape(problemOf(refused.body, "subject") ?? "")).toBe("Line 1, column 4: there is no filter nope (Liquid: unknown filter: nope)")
    expect(refused.body).toContain("<pre class=\"excerpt\" tabindex=\"0\">2 | &lt;p&gt;{% iff subscriber.first_name %}x{…\n       ^</pre>")
    expect(refused.body).toContain("id=\"tpl-html\" name=\"html\"")
    expect(unescape(refused.body)).toContain(`\n${html}</textarea>`)
    expect(refused.body).toContain("aria-describedby=\"tpl-hint tpl-html-error\" aria-invalid=\"true\"")
    expect(refused.body).toContain("The template has problems; they are shown beside each part.")
    expect((await b.get(`${base}/templates`)).body).toContain("No templates yet.")

    // An edit with a problem changes nothing; in German the same place is told in German.
    const made = await b.post(`${base}/templates/new`, { csrf, name: "Fine", subject: "Hi", html: "<p>Hi</p>" })
    const id = idOf(made.headers.get("location"))
    await b.get("/app/locale/de?back=/app")
    const edit = await b.post(`${base}/templates/${id}`, { csrf, name: "Fine", subject: "Hi", html: "<p>\n\n  {{ subscriber.email </p>", text: "" })
    expect(edit.status).toBe(400)
    expect(unescape(problemOf(edit.body, "html") ?? "")).toMatch(/^Zeile 3, Spalte 3: eine mit zwei geschweiften Klammern geöffnete Ausgabe wird nicht geschlossen \(Liquid: output .* not closed\)$/)
    expect(edit.body).toContain("Die Vorlage hat Probleme")
    const read = await b.get(`${base}/templates/${id}`)
    expect(read.body).toContain("\n&lt;p&gt;Hi&lt;/p&gt;</textarea>")
  })

  it("refuses a draft's fields as the API would: a name, a subject on one line, a body", async () => {
    const { b, base, csrf } = await ownerWithOrganization(server)
    const refused = await b.post(`${base}/templates/new`, { csrf, name: "", subject: "  ", html: "", text: "" })
    expect(refused.status).toBe(400)
    expect(refused.body).toContain("<p class=\"field-error\" id=\"tpl-name-error\">Give the template a name of at most 200 characters, on one line.</p>")
    expect(problemOf(refused.body, "subject")).toBe("Write a subject of at most 1000 characters, on one line.")
    expect(problemOf(refused.body, "html")).toBe("Give an HTML body, a text body or both.")
    const include = await b.post(`${base}/templates/new`, { csrf, name: "Files", subject: "Hi", html: "{% include 'secrets' %}" })
    expect(include.status).toBe(400)
    expect(unescape(problemOf(include.body, "html") ?? "")).toBe(
      "Line 1, column 1: the tag include is not allowed (Liquid: the `include` tag is not allowed: a template reaches nothing but its own variables)"
    )
  })

  it("answers the check route's JSON: problems at line and column, variables, and the preview for a subscriber found by email", async () => {
    const { b, base, csrf, organization } = await personIn(server)
    const key = await server.createApiKey(organization)
    const email = freshAddress("reader")
    const made = await call(server, "POST", `${api()}/subscribers`, {
      key,
      json: { email, metadata: { name: "Ada", plan: "pro" } }
    })
    expect(made.status, made.text).toBe(201)
    const draft = {
      csrf,
      name: "",
      subject: "For {{ subscriber.metadata.name | default: subscriber.first_name }}",
      html: "<b>{{ subscriber.metadata.plan }}</b>",
      text: "Plan {{ subscriber.metadata.plan }} {{ data.missing }}"
    }
    const checked = await b.post(`${base}/templates/check`, { ...draft, preview_email: email })
    expect(checked.status).toBe(200)
    expect(checked.headers.get("content-type")).toContain("application/json")
    expect(JSON.parse(checked.body)).toEqual({
      problems: { subject: null, html: null, text: null },
      fields: { subject: null, html: null, text: null },
      variables: ["subscriber.metadata.name", "subscriber.first_name", "subscriber.metadata.plan", "data.missing"],
      preview: {
        note: `Shown for ${email}.`,
        subject: "For Ada",
        text: "Plan pro ",
        hasHtml: true,
        empty: "These variables had no value: data.missing, subscriber.first_name."
      }
    })

    const sample = JSON.parse((await b.post(`${base}/templates/check`, { ...draft, preview_email: "nobody@example.com" })).body)
    expect(sample.preview).toMatchObject({
      note: "No subscriber of this organization has the address nobody@example.com; the preview shows a sample subscriber.",
      subject: "For Jane"
    })

    const broken = JSON.parse((await b.post(`${base}/templates/check`, { ...draft, text: "ok\n{% for x in subscriber.tags %}" })).body)
    expect(broken.problems.text).toEqual({
      message: expect.stringMatching(/^Line 2, column 1: the tag for is opened but never closed \(Liquid: tag .*for.* not closed\)$/),
      line: 2,
      column: 1,
      excerpt: "2 | {% for x in subscriber.tags %}\n    ^"
    })
    expect(broken.problems.subject).toBeNull()
    expect(broken.preview).toEqual({ note: "Fix the problems in the template to see the preview." })

    const search = await b.get(`${base}/templates/subscribers?q=${encodeURIComponent(email.slice(0, 8))}`)
    expect(JSON.parse(search.body)).toEqual({ emails: [email] })
    const tooLong = await b.get(`${base}/templates/subscribers?q=${"a".repeat(400)}`)
    expect(tooLong.status).toBe(400)
    expect(JSON.parse(tooLong.body).error).toBeTypeOf("string")
  })

  it("renders the HTML body into a frame whose policy runs no script, escaping the subscriber's values", async () => {
    const { b, base, csrf, organization } = await personIn(server)
    const key = await server.createApiKey(organization)
    const email = freshAddress("frame")
    await call(server, "POST", `${api()}/subscribers`, { key, json: { email, metadata: { name: "<script>alert(1)</script>" } } })
    const frame = await b.post(`${base}/templates/preview`, {
      csrf,
      subject: "Hi",
      html: "<h1 style=\"color: red\">Hi {{ subscriber.metadata.name }}</h1><script>parent.document.title = 'x'</script>",
      text: "",
      preview_email: email
    })
    expect(frame.status).toBe(200)
    expect(frame.headers.get("content-type")).toContain("text/html")
    const policy = frame.headers.get("content-security-policy") ?? ""
    expect(policy).toContain("sandbox")
    expect(policy).toContain("default-src 'none'")
    expect(policy).not.toContain("script-src")
    expect(policy).toContain("frame-ancestors 'self'")
    expect(frame.body).toContain("<h1 style=\"color: red\">Hi &lt;script&gt;alert(1)&lt;/script&gt;</h1>")

    const broken = await b.post(`${base}/templates/preview`, { csrf, subject: "Hi", html: "{% if %}", text: "" })
    expect(broken.status).toBe(200)
    expect(broken.body).toContain("Fix the problems in the template to see the preview.")

    const made = await b.post(`${base}/templates/new`, { csrf, name: "Saved", subject: "Hi", html: "<p>{{ subscriber.first_name }}</p>" })
    const id = idOf(made.headers.get("location"))
    const saved = await b.get(`${base}/templates/${id}/preview`)
    expect(saved.body).toBe("<p>Jane</p>")
    expect(saved.headers.get("content-security-policy")).toContain("sandbox")
    const textOnly = await b.post(`${base}/templates/preview`, { csrf, subject: "Hi", html: "", text: "Hello" })
    expect(textOnly.body).toContain("No HTML body.")
    // Without the form token the frame is refused like any form.
    expect((await b.post(`${base}/templates/preview`, { subject: "Hi", html: "<p>x</p>" })).status).toBe(403)
  })

  it("sends a test to the signed-in person through the send use case, which reaches the provider", async () => {
    const { b, base, csrf, organization, user } = await personIn(server)
    const made = await b.post(`${base}/templates/new`, {
      csrf,
      name: "Test me",
      subject: "Test for {{ subscriber.metadata.name }}",
      html: "<p>Hello {{ subscriber.email }}</p>"
    })
    const id = idOf(made.headers.get("location"))

    // Not a subscriber yet: told so, nothing sent.
    const refused = await b.post(`${base}/templates/${id}/test`, { csrf })
    expect(refused.status).toBe(303)
    const told = await b.get(`${base}/templates/${id}`)
    expect(unescape(told.body)).toContain(`Test emails go to you as a subscriber of this organization, and ${user.email} is not one.`)
    expect(told.body).toContain("class=\"flash error\" role=\"alert\"")

    const key = await server.createApiKey(organization)
    const subscriber = await call(server, "POST", `${api()}/subscribers`, { key, json: { email: user.email, metadata: { name: "Me" } } })
    expect(subscriber.status, subscriber.text).toBe(201)
    const sent = await b.post(`${base}/templates/${id}/test`, { csrf })
    expect(sent.status).toBe(303)
    expect(sent.headers.get("location")).toBe(`${base}/templates/${id}`)
    expect((await b.get(`${base}/templates/${id}`)).body).toContain(`A test of Test me is on its way to ${user.email}.`)
    expect(await server.run(deliverDue())).toBe(1)
    const mail = resend.accepted().filter((m) => m.to.toLowerCase() === user.email.toLowerCase())
    expect(mail).toHaveLength(1)
    expect(mail[0]).toMatchObject({ subject: "Test for Me" })
    expect(mail[0]!.html).toContain(`<p>Hello ${user.email}</p>`)
  })

  it("says a test to a bounced address was not sent, and sends nothing", async () => {
    const { b, base, csrf, organization, user } = await personIn(server)
    await server.run(givenSubscriber(OrganizationId.make(organization.id), { email: user.email, status: "bounced" }))
    const made = await b.post(`${base}/templates/new`, { csrf, name: "Held", subject: "Hi", text: "Hello" })
    const id = idOf(made.headers.get("location"))
    const held = await b.post(`${base}/templates/${id}/test`, { csrf })
    expect(held.status).toBe(303)
    const told = await b.get(`${base}/templates/${id}`)
    expect(unescape(told.body)).toContain(`The test was not sent: ${user.email} has bounced, complained or asked to be erased`)
    expect(await server.run(deliverDue())).toBe(0)
    expect(resend.accepted().filter((m) => m.to.toLowerCase() === user.email.toLowerCase())).toEqual([])
  })

  it("deletes a template after a confirmation that says what loses it", async () => {
    const { b, base, csrf } = await ownerWithOrganization(server)
    const made = await b.post(`${base}/templates/new`, { csrf, name: "Old", subject: "Hi", text: "Bye" })
    const id = idOf(made.headers.get("location"))
    const confirm = await b.get(`${base}/templates/${id}/delete`)
    expect(confirm.body).toContain("Delete the template Old?")
    expect(confirm.body).toContain("Campaigns, triggers, sequence steps and sign-up forms that use it lose it")
    const deleted = await b.post(`${base}/templates/${id}/delete`, { csrf })
    expect(deleted.status).toBe(303)
    expect(deleted.headers.get("location")).toBe(`${base}/templates`)
    const list = await b.get(`${base}/templates`)
    expect(list.body).toContain("The template Old was deleted.")
    expect(list.body).toContain("No templates yet.")
    expect((await b.get(`${base}/templates/${id}`)).status).toBe(404)
  })

  it("lets a member, not only an owner, write templates, as their role's scopes allow", async () => {
    const { b, base, csrf } = await personIn(server, { role: "member" })
    const made = await b.post(`${base}/templates/new`, { csrf, name: "Members'", subject: "Hi", text: "Hello" })
    expect(made.status).toBe(303)
    expect((await b.get(`${base}/templates`)).body).toContain(">Members&#39;</a>")
  })

  it("neither shows nor changes another organization's template, and answers an id that is none with a page", async () => {
    const first = await ownerWithOrganization(server)
    const made = await first.b.post(`${first.base}/templates/new`, { csrf: first.csrf, name: "Mine", subject: "Hi", text: "x" })
    const id = idOf(made.headers.get("location"))
    const second = await ownerWithOrganization(server)
    expect((await second.b.get(`${second.base}/templates/${id}`)).status).toBe(404)
    expect((await second.b.post(`${second.base}/templates/${id}`, { csrf: second.csrf, name: "Taken", subject: "x", text: "x" })).status).toBe(404)
    expect((await second.b.post(`${second.base}/templates/${id}/delete`, { csrf: second.csrf })).status).toBe(404)
    expect((await second.b.post(`${second.base}/templates/${id}/test`, { csrf: second.csrf })).status).toBe(404)
    const frame = await second.b.get(`${second.base}/templates/${id}/preview`)
    expect(frame.body).not.toContain("x</")
    expect(frame.headers.get("content-security-policy")).toContain("sandbox")
    const none = await second.b.get(`${second.base}/templates/not-an-id`)
    expect(none.status).toBe(404)
    expect(none.headers.get("content-type")).toContain("text/html")
    // Someone who is not a member of the organization sees none of its pages.
    expect((await second.b.get(`${first.base}/templates`)).status).toBe(404)
    expect((await first.b.get(`${first.base}/templates/${id}`)).body).toContain("value=\"Mine\"")
  })

  it("changes nothing for a form without the session's token, with another's, or from another site", async () => {
    const { b, base, csrf } = await ownerWithOrganization(server)
    const other = await ownerWithOrganization(server)
    const made = await b.post(`${base}/templates/new`, { csrf, name: "Kept", subject: "Hi", text: "x" })
    const id = idOf(made.headers.get("location"))
    const attempts = [
      await b.post(`${base}/templates/new`, { name: "Forged", subject: "Hi", text: "x" }),
      await b.post(`${base}/templates/new`, { csrf: other.csrf, name: "Forged", subject: "Hi", text: "x" }),
      await b.post(`${base}/templates/${id}`, { csrf, name: "Forged", subject: "Hi", text: "x" }, { origin: "https://evil.example" }),
      await b.post(`${base}/templates/${id}/delete`, { csrf: csrfOf(await other.b.get(other.base)) }),
      await b.post(`${base}/templates/${id}/test`, {}),
      await b.post(`${base}/templates/check`, { subject: "Hi", text: "x" })
    ]
    for (const attempt of attempts) {
      expect(attempt.status).toBe(403)
      expect(unescape(attempt.body)).toContain("was not sent from Roster's own pages")
    }
    const list = await b.get(`${base}/templates`)
    expect(list.body).toContain(">Kept</a>")
    expect(list.body).not.toContain("Forged")
  })
})
