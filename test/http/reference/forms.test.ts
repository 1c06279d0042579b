/** /api/v1/forms: sign-up forms with their tags (by id), double opt-in, redirects and allowed origins. */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../../support/http-server.js"
import { createTag, expectInvalid, expectProblem, isoInstantPattern, uuidPattern } from "../helpers.js"

let server: TestHttpServer
beforeAll(async () => {
  server = await startHttpServer({ adapters: UnlimitedRateLimiterLive })
})
afterAll(() => server.close())

const path = "/api/v1/forms"
const nothing = "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"

const createForm = async (key: string, json: Record<string, unknown>) => {
  const answer = await call(server, "POST", path, { key, json })
  expect(answer.status, answer.text).toBe(201)
  return answer.body
}

describe("forms", () => {
  it("are created with double opt-in on by default, read, listed oldest first, changed and deleted", async () => {
    const { key } = await server.seedOrganization()
    const news = await createTag(server, key)
    const made = await createForm(key, {
      name: " Newsletter ",
      tags: [news.id],
      consent_text: "I agree to receive the newsletter.",
      allowed_origins: ["https://Example.com", "http://localhost:8080/"]
    })
    expect(made).toEqual({
      id: expect.stringMatching(uuidPattern),
      name: "Newsletter",
      tags: [{ id: news.id, name: news.name, slug: news.slug }],
      double_opt_in: true,
      consent_text: "I agree to receive the newsletter.",
      success_url: null,
      confirmed_url: null,
      allowed_origins: ["https://example.com", "http://localhost:8080"],
      confirmation_template_id: null,
      created_at: expect.stringMatching(isoInstantPattern),
      updated_at: made.created_at
    })
    expect((await call(server, "GET", `${path}/${made.id}`, { key })).body).toEqual(made)
    const second = await createForm(key, { name: "Instant", double_opt_in: false })
    expect(second).toMatchObject({ double_opt_in: false, tags: [], allowed_origins: [] })

    const page = await call(server, "GET", `${path}?limit=1`, { key })
    expect(page.body.items.map((f: { id: string }) => f.id)).toEqual([made.id])
    expect(page.body.total).toBe(2)
    const next = await call(server, "GET", `${path}?limit=1&cursor=${encodeURIComponent(page.body.next_cursor)}`, { key })
    expect(next.body.items.map((f: { id: string }) => f.id)).toEqual([second.id])

    const template = await call(server, "POST", "/api/v1/templates", {
      key,
      json: { name: "Confirm", subject: "Please confirm", text: "{{ data.confirm_url }}" }
    })
    const changed = await call(server, "PUT", `${path}/${made.id}`, {
      key,
      json: {
        consent_text: null,
        success_url: "https://example.com/thanks",
        confirmed_url: "https://example.com/welcome",
        confirmation_template_id: template.body.id,
        tags: []
      }
    })
    expect(changed.status, changed.text).toBe(200)
    expect(changed.body).toMatchObject({
      name: "Newsletter",
      tags: [],
      consent_text: null,
      success_url: "https://example.com/thanks",
      confirmed_url: "https://example.com/welcome",
      confirmation_template_id: template.body.id,
      allowed_origins: made.allowed_origins
    })

    expect((await call(server, "DELETE", `${path}/${made.id}`, { key })).status).toBe(204)
    expectProblem(await call(server, "GET", `${path}/${made.id}`, { key }), "not_found", `${path}/${made.id}`)
  })

  it("a tag deleted after leaves the form that named it", async () => {
    const { key } = await server.seedOrganization()
    const kept = await createTag(server, key)
    const gone = await createTag(server, key)
    const form = await createForm(key, { name: "Two tags", tags: [gone.id, kept.id] })
    expect(form.tags.map((t: { id: string }) => t.id)).toEqual([gone.id, kept.id])
    expect((await call(server, "DELETE", `/api/v1/tags/${gone.id}`, { key })).status).toBe(204)
    expect((await call(server, "GET", `${path}/${form.id}`, { key })).body.tags.map((t: { id: string }) => t.id)).toEqual([kept.id])
  })

  it("refuses bad fields, naming each", async () => {
    const { key } = await server.seedOrganization()
    const other = await server.seedOrganization()
    const theirTag = await createTag(server, other.key)
    expectInvalid(await call(server, "POST", path, { key, json: { name: "" } }), path, ["name"])
    expectInvalid(await call(server, "POST", path, { key, json: { name: "x", tags: [theirTag.id] } }), path, ["tags[0]"])
    expectInvalid(await call(server, "POST", path, { key, json: { name: "x", tags: ["not-an-id"] } }), path, ["tags[0]"])
    expectInvalid(
      await call(server, "POST", path, { key, json: { name: "x", allowed_origins: ["https://example.com/path"] } }),
      path,
      ["allowed_origins[0]"]
    )
    expectInvalid(
      await call(server, "POST", path, { key, json: { name: "x", allowed_origins: ["https://a.com", "https://A.com"] } }),
      path,
      ["allowed_origins"]
    )
    expectInvalid(await call(server, "POST", path, { key, json: { name: "x", success_url: "javascript:alert(1)" } }), path, ["success_url"])
    expectInvalid(await call(server, "POST", path, { key, json: { name: "x", confirmed_url: "/relative" } }), path, ["confirmed_url"])
    expectInvalid(await call(server, "POST", path, { key, json: { name: "x", consent_text: "  " } }), path, ["consent_text"])
    expectInvalid(await call(server, "POST", path, { key, json: { name: "x", double_opt_in: "yes" } }), path, ["double_opt_in"])
    expectInvalid(await call(server, "POST", path, { key, json: { name: "x", confirmation_template_id: nothing } }), path, [
      "confirmation_template_id"
    ])
    expectInvalid(await call(server, "POST", path, { key, json: { name: "x", organization_id: nothing } }), path, ["organization_id"])
    expect((await call(server, "GET", path, { key })).body.total).toBe(0)
  })

  it("another organization's form is refused, an unknown one not found, and the forms scopes hold", async () => {
    const { key, organization } = await server.seedOrganization()
    const form = await createForm(key, { name: "Mine" })
    const other = await server.seedOrganization()
    expectProblem(await call(server, "GET", `${path}/${form.id}`, { key: other.key }), "forbidden", `${path}/${form.id}`)
    expectProblem(await call(server, "PUT", `${path}/${form.id}`, { key: other.key, json: { name: "x" } }), "forbidden", `${path}/${form.id}`)
    expectProblem(await call(server, "DELETE", `${path}/${form.id}`, { key: other.key }), "forbidden", `${path}/${form.id}`)
    expectProblem(await call(server, "GET", `${path}/${nothing}`, { key }), "not_found", `${path}/${nothing}`)

    const reader = await server.createApiKey(organization, ["forms:read"])
    expect((await call(server, "GET", `${path}/${form.id}`, { key: reader })).status).toBe(200)
    const refused = await call(server, "POST", path, { key: reader, json: { name: "x" } })
    expectProblem(refused, "forbidden", path)
    expect(refused.body.detail).toContain("forms:write")
    const none = await server.createApiKey(organization, ["subscribers:read"])
    expect((await call(server, "GET", path, { key: none })).body.detail).toContain("forms:read")
    const member = await server.signIn()
    await server.addMember(organization.id, member, "member")
    const byMember = await call(server, "POST", path, { headers: member.headers(organization.id), json: { name: "By a member" } })
    expect(byMember.status, byMember.text).toBe(201)
    expectProblem(await call(server, "GET", path), "unauthorized", path)
  })

  it("answer the HTML form a site embeds: every value escaped, posting to the public address, and a reader's post of it from an allowed site signs up", async () => {
    const { key, organization } = await server.seedOrganization()
    const site = "https://example.com"
    const form = await createForm(key, {
      name: "News",
      consent_text: 'I agree to "<b>news</b>" & {{ 7 * 7 }}.',
      allowed_origins: [site],
      double_opt_in: false
    })
    const answer = await call(server, "GET", `${path}/${form.id}/embed`, { key })
    expect(answer.status, answer.text).toBe(200)
    expect(Object.keys(answer.body).sort()).toEqual(["html", "page_url"])
    expect(answer.body.page_url).toBe(`http://localhost:3000/f/${form.id}`)
    const html: string = answer.body.html
    expect(html.startsWith(`<form method="post" action="http://localhost:3000/f/${form.id}?locale=en"`)).toBe(true)
    expect(html.trimEnd().endsWith("</form>")).toBe(true)
    expect(html).toContain("I agree to &#34;&lt;b&gt;news&lt;/b&gt;&#34; &amp; {{ 7 * 7 }}.")
    expect(html).not.toContain("<b>")
    expect(html).not.toContain("<script")
    expect(html).toContain(`<label for="roster-${form.id}-email">Email address</label>`)
    expect(html).toMatch(/<div hidden>\s*<label[^>]*>Leave this field empty<\/label>\s*<input [^>]*name="website" type="text" tabindex="-1"/)
    const german = await call(server, "GET", `${path}/${form.id}/embed?locale=de`, { key })
    expect(german.body.html).toContain(`action="http://localhost:3000/f/${form.id}?locale=de"`)
    expect(german.body.html).toContain("E-Mail-Adresse")
    expect(german.body.html).toContain("Abonnieren")

    // What a browser posts from the site's page: the snippet's fields, as they are.
    const names = [...html.matchAll(/<input [^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)].map(([, name, value]): [string, string] => [name!, value!])
    expect(names).toEqual([["website", ""]])
    const email = `embedded-${Date.now()}@example.com`
    const posted = await fetch(`${server.baseUrl}/f/${form.id}?locale=en`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: site },
      body: new URLSearchParams([["email", email], ...names]).toString()
    })
    expect(posted.status).toBe(200)
    expect(await posted.text()).toContain("You are subscribed")
    const found = await call(server, "GET", `/api/v1/subscribers/by-email/${encodeURIComponent(email)}`, { key })
    expect(found.body.status).toBe("active")

    const without = await createForm(key, { name: "Plain" })
    expect((await call(server, "GET", `${path}/${without.id}/embed`, { key })).body.html).not.toContain("roster-consent")
    const reader = await server.createApiKey(organization, ["forms:read"])
    expect((await call(server, "GET", `${path}/${form.id}/embed`, { key: reader })).status).toBe(200)
  })

  it("refuse an embed in another language, of an unknown or another organization's form, or without forms:read", async () => {
    const { key, organization } = await server.seedOrganization()
    const form = await createForm(key, { name: "Mine" })
    const embed = `${path}/${form.id}/embed`
    expectInvalid(await call(server, "GET", `${embed}?locale=fr`, { key }), embed, ["locale"])
    expectInvalid(await call(server, "GET", `${embed}?colour=red`, { key }), embed, ["colour"])
    expectProblem(await call(server, "GET", `${path}/${nothing}/embed`, { key }), "not_found", `${path}/${nothing}/embed`)
    const other = await server.seedOrganization()
    expectProblem(await call(server, "GET", embed, { key: other.key }), "forbidden", embed)
    const none = await server.createApiKey(organization, ["subscribers:read"])
    const refused = await call(server, "GET", embed, { key: none })
    expectProblem(refused, "forbidden", embed)
    expect(refused.body.detail).toContain("forms:read")
    expectProblem(await call(server, "GET", embed), "unauthorized", embed)
  })
})
