/**
 * The dashboard's sign-up forms screen through the running server, in both deployments: the list
 * with each form's waiting and joined counts, creating and changing a form with every field,
 * refusals beside their fields (in German too), the embed snippet the API answers, deleting after
 * a confirmation, another organization's form, and forms posted without the session's token.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, freshAddress, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../../support/http-server.js"
import { csrfOf, fieldError, ownerWithOrganization, personIn, unescape } from "./dashboard-browser.js"

const deployments = ["reference", "overview"] as const
const site = "https://news.example.com"

/** The ids a page's links name after `prefix`. */
const idsIn = (body: string, prefix: string) =>
  [...body.matchAll(new RegExp(`${prefix}/([0-9a-f-]{36})"`, "g"))].map((m) => m[1]!)

/** A row's cells, by the link to the form. */
const rowOf = (body: string, id: string) => {
  const rows = body.split("<tr>").filter((row) => row.includes(`/forms/${id}"`))
  return rows[0] ?? ""
}

describe.each(deployments)("the sign-up forms screen in the %s deployment", (deployment) => {
  let server: TestHttpServer
  beforeAll(async () => {
    server = await startHttpServer({ form: deployment, adapters: UnlimitedRateLimiterLive })
  })
  afterAll(() => server.close())
  const api = () => deployment === "overview" ? "/v1" : "/api/v1"

  it("creates a form with every field, shows its embed snippet as the API answers it, and lists its counts", async () => {
    const person = await personIn(server)
    const { b, base, csrf, organization } = person
    const key = await server.createApiKey(organization)
    const tag = await call(server, "POST", `${api()}/tags`, { key, json: { name: "Weekly <news>" } })
    expect(tag.status, tag.text).toBe(201)
    const tagId = (tag.body.data ?? tag.body).id as string

    const empty = await b.get(`${base}/forms`)
    expect(empty.status).toBe(200)
    expect(empty.body).toContain("No sign-up forms yet.")
    expect(empty.body).toContain(`<a href="${base}/forms" aria-current="page">Sign-up forms</a>`)

    const blank = await b.get(`${base}/forms/new`)
    expect(blank.body).toContain("name=\"double_opt_in\" value=\"on\" aria-describedby=\"form-double-opt-in-hint\" checked")
    expect(blank.body).toContain("Weekly &lt;news&gt;")

    const made = await b.post(`${base}/forms/new`, {
      csrf,
      name: "Newsletter <weekly>",
      tags: [tagId],
      double_opt_in: "on",
      consent_text: "Yes, send me the weekly news.",
      success_url: "https://news.example.com/thanks",
      confirmed_url: "https://news.example.com/welcome",
      allowed_origins: `${site}\r\nhttps://shop.example.com/`,
      confirmation_template_id: ""
    })
    expect(made.status, made.body).toBe(303)
    const formId = /\/forms\/([0-9a-f-]{36})$/.exec(made.headers.get("location") ?? "")![1]!
    expect(made.headers.get("location")).toBe(`${base}/forms/${formId}`)

    const edit = await b.get(`${base}/forms/${formId}`)
    expect(edit.body).toContain("The sign-up form Newsletter &lt;weekly&gt; was created.")
    expect(edit.body).toContain(`href="/f/${formId}"`)
    expect(edit.body).toContain("value=\"https://news.example.com/thanks\"")
    expect(edit.body).toContain(`${site}\nhttps://shop.example.com</textarea>`)
    expect(edit.body).toContain(`value="${tagId}" checked`)
    // The snippet is the one the API answers, escaped once more inside the read-only field.
    const embed = await call(server, "GET", `${api()}/forms/${formId}/embed?locale=en`, { key })
    expect(embed.status, embed.text).toBe(200)
    const html = (embed.body.data ?? embed.body).html as string
    const snippet = /<textarea id="form-embed" class="code" rows="8" readonly>([\s\S]*?)<\/textarea>/.exec(edit.body)![1]!
    expect(unescape(snippet)).toBe(html)
    expect(edit.body).toContain("data-copy=\"form-embed\"")

    // Two readers wait for their confirmation; a form without double opt-in has one who joined.
    for (const email of [freshAddress("pending"), freshAddress("pending")]) {
      const answer = await call(server, "POST", `/f/${formId}`, {
        headers: { origin: site, "content-type": "application/json" },
        body: JSON.stringify({ email })
      })
      expect(answer.status, answer.text).toBe(202)
    }
    const direct = await b.post(`${base}/forms/new`, { csrf, name: "Direct", allowed_origins: site })
    expect(direct.status).toBe(303)
    const directId = /\/forms\/([0-9a-f-]{36})$/.exec(direct.headers.get("location") ?? "")![1]!
    const joined = await call(server, "POST", `/f/${directId}`, {
      headers: { origin: site, "content-type": "application/json" },
      body: JSON.stringify({ email: freshAddress("joined") })
    })
    expect(joined.status, joined.text).toBe(200)

    const list = await b.get(`${base}/forms`)
    expect(rowOf(list.body, formId)).toContain("<td>Yes</td>")
    expect(rowOf(list.body, formId)).toMatch(/<td class="number">2<\/td>\s*<td class="number">0<\/td>/)
    expect(rowOf(list.body, formId)).toContain("<span class=\"badge\">Weekly &lt;news&gt;</span>")
    expect(rowOf(list.body, directId)).toContain("<td>No</td>")
    expect(rowOf(list.body, directId)).toMatch(/<td class="number">0<\/td>\s*<td class="number">1<\/td>/)
  })

  it("changes a form: fields emptied are removed, tags unticked are dropped, double opt-in turned off", async () => {
    const { b, base, csrf } = await ownerWithOrganization(server)
    const made = await b.post(`${base}/forms/new`, {
      csrf, name: "Weekly", double_opt_in: "on", consent_text: "Yes", success_url: "https://example.com/thanks", allowed_origins: site
    })
    const formId = /\/forms\/([0-9a-f-]{36})$/.exec(made.headers.get("location") ?? "")![1]!
    const saved = await b.post(`${base}/forms/${formId}`, { csrf, name: "Monthly", consent_text: "", success_url: "", allowed_origins: "" })
    expect(saved.status).toBe(303)
    const edit = await b.get(`${base}/forms/${formId}`)
    expect(edit.body).toContain("The sign-up form Monthly was saved.")
    expect(edit.body).toContain("id=\"form-success-url\" name=\"success_url\" type=\"text\" inputmode=\"url\" maxlength=\"2048\" value=\"\"")
    expect(edit.body).not.toContain("aria-describedby=\"form-double-opt-in-hint\" checked")
    expect(edit.body).not.toContain("class=\"consent\"")
    const list = await b.get(`${base}/forms`)
    expect(rowOf(list.body, formId)).toContain("<td>No</td>")
    expect(rowOf(list.body, formId)).toContain(">Monthly</a>")
  })

  it("shows each refusal beside its field, keeps what was typed, and speaks German", async () => {
    const { b, base, csrf } = await ownerWithOrganization(server)
    const wrong = await b.post(`${base}/forms/new`, {
      csrf,
      name: " ",
      success_url: "ftp://example.com",
      confirmed_url: "not a url",
      allowed_origins: "https://example.com/path",
      consent_text: "x".repeat(2_001)
    })
    expect(wrong.status).toBe(400)
    expect(fieldError(wrong, "form-name")).toBe("Give the form a name of at most 200 characters, on one line.")
    expect(fieldError(wrong, "form-success-url")).toContain("starts with https:// or http://")
    expect(fieldError(wrong, "form-confirmed-url")).toContain("starts with https:// or http://")
    expect(fieldError(wrong, "form-origins")).toContain("no path")
    expect(fieldError(wrong, "form-consent")).toBe("The consent text may be at most 2000 characters.")
    expect(wrong.body).toContain("value=\"not a url\"")
    expect(wrong.body).toContain("https://example.com/path</textarea>")

    // A tag that is not the organization's is refused by the use case, beside the tags.
    const unknownTag = await b.post(`${base}/forms/new`, { csrf, name: "Weekly", tags: "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10" })
    expect(unknownTag.status).toBe(400)
    expect(fieldError(unknownTag, "form-tags")).toBe("no tag with id 0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10 in this organization")
    const unknownTemplate = await b.post(`${base}/forms/new`, {
      csrf, name: "Weekly", confirmation_template_id: "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"
    })
    expect(unknownTemplate.status).toBe(400)
    expect(fieldError(unknownTemplate, "form-template")).toContain("no template with id")
    expect((await b.get(`${base}/forms`)).body).toContain("No sign-up forms yet.")

    await b.get("/app/locale/de?back=/app")
    const german = await b.post(`${base}/forms/new`, { csrf, name: "", success_url: "nope", tags: "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10" })
    expect(german.status).toBe(400)
    expect(german.body).toContain("<html lang=\"de\">")
    expect(fieldError(german, "form-name")).toBe("Geben Sie dem Formular einen Namen mit höchstens 200 Zeichen in einer Zeile.")
    expect(fieldError(german, "form-success-url")).toContain("mit https:// oder http:// beginnt")
    const germanTag = await b.post(`${base}/forms/new`, { csrf, name: "Wöchentlich", tags: "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10" })
    expect(unescape(fieldError(germanTag, "form-tags") ?? "")).toBe("in dieser Organisation gibt es keinen Tag mit der ID 0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10")
    const list = await b.get(`${base}/forms`)
    expect(list.body).toContain("Noch keine Anmeldeformulare.")
    expect(list.body).toContain(">Anmeldeformulare</a>")
  })

  it("deletes a form after a confirmation; its hosted page is gone", async () => {
    const { b, base, csrf } = await ownerWithOrganization(server)
    const made = await b.post(`${base}/forms/new`, { csrf, name: "Old form", double_opt_in: "on" })
    const formId = /\/forms\/([0-9a-f-]{36})$/.exec(made.headers.get("location") ?? "")![1]!
    expect((await fetch(`${server.baseUrl}/f/${formId}`)).status).toBe(200)
    const confirm = await b.get(`${base}/forms/${formId}/delete`)
    expect(confirm.body).toContain("Delete the sign-up form Old form?")
    expect(confirm.body).toContain("Subscribers who joined through it stay.")
    const deleted = await b.post(`${base}/forms/${formId}/delete`, { csrf })
    expect(deleted.status).toBe(303)
    expect(deleted.headers.get("location")).toBe(`${base}/forms`)
    const list = await b.get(`${base}/forms`)
    expect(list.body).toContain("The sign-up form Old form was deleted.")
    expect(idsIn(list.body, "/forms")).not.toContain(formId)
    expect((await fetch(`${server.baseUrl}/f/${formId}`)).status).toBe(404)
    expect((await b.get(`${base}/forms/${formId}`)).status).toBe(404)
  })

  it("neither shows nor changes another organization's form, and answers an id that is none with a page", async () => {
    const first = await ownerWithOrganization(server)
    const made = await first.b.post(`${first.base}/forms/new`, { csrf: first.csrf, name: "Mine" })
    const formId = /\/forms\/([0-9a-f-]{36})$/.exec(made.headers.get("location") ?? "")![1]!
    const second = await ownerWithOrganization(server)
    expect((await second.b.get(`${second.base}/forms/${formId}`)).status).toBe(404)
    expect((await second.b.post(`${second.base}/forms/${formId}`, { csrf: second.csrf, name: "Taken" })).status).toBe(404)
    expect((await second.b.post(`${second.base}/forms/${formId}/delete`, { csrf: second.csrf })).status).toBe(404)
    const none = await second.b.get(`${second.base}/forms/not-an-id`)
    expect(none.status).toBe(404)
    expect(none.headers.get("content-type")).toContain("text/html")
    expect((await first.b.get(`${first.base}/forms/${formId}`)).body).toContain("value=\"Mine\"")
  })

  it("lists 50 forms a page, oldest first, with links between the pages", async () => {
    const { b, base, organization } = await personIn(server)
    const key = await server.createApiKey(organization)
    for (let i = 1; i <= 51; i++) {
      const made = await call(server, "POST", `${api()}/forms`, { key, json: { name: `Form ${String(i).padStart(2, "0")}` } })
      expect(made.status, made.text).toBe(201)
    }
    const first = await b.get(`${base}/forms`)
    expect(first.body).toContain(">Form 50</a>")
    expect(first.body).not.toContain(">Form 51</a>")
    expect(first.body).toContain(`<a href="${base}/forms?page=2">Next</a>`)
    const second = await b.get(`${base}/forms?page=2`)
    expect(second.body).toContain(">Form 51</a>")
    expect(second.body).toContain("Page 2 of 2")
    expect(second.body).toContain(`<a href="${base}/forms?page=1">Previous</a>`)
  })

  it("lets a member, not only an owner, make forms and segments, as their role's scopes allow", async () => {
    const { b, base, csrf } = await personIn(server, { role: "member" })
    const form = await b.post(`${base}/forms/new`, { csrf, name: "Members' form" })
    expect(form.status).toBe(303)
    expect((await b.get(`${base}/forms`)).body).toContain(">Members&#39; form</a>")
    const segment = await b.post(`${base}/segments/new`, { csrf, name: "Everyone", match: "all", intent: "save" })
    expect(segment.status).toBe(303)
    expect((await b.get(`${base}/segments`)).body).toContain(">Everyone</a>")
  })

  it("changes nothing for a form without the session's token, with another's, or from another site", async () => {
    const { b, base, csrf } = await ownerWithOrganization(server)
    const other = await ownerWithOrganization(server)
    const made = await b.post(`${base}/forms/new`, { csrf, name: "Kept" })
    const formId = /\/forms\/([0-9a-f-]{36})$/.exec(made.headers.get("location") ?? "")![1]!
    const attempts = [
      await b.post(`${base}/forms/new`, { name: "Forged" }),
      await b.post(`${base}/forms/new`, { csrf: other.csrf, name: "Forged" }),
      await b.post(`${base}/forms/${formId}`, { csrf, name: "Forged" }, { origin: "https://evil.example" }),
      await b.post(`${base}/forms/${formId}/delete`, { csrf: csrfOf(await other.b.get(other.base)) })
    ]
    for (const attempt of attempts) {
      expect(attempt.status).toBe(403)
      expect(unescape(attempt.body)).toContain("was not sent from Roster's own pages")
    }
    const list = await b.get(`${base}/forms`)
    expect(list.body).toContain(">Kept</a>")
    expect(list.body).not.toContain("Forged")
  })
})
