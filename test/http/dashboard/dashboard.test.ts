/**
 * The dashboard at /app through the running server, in both deployments: signing in with the
 * emailed link, choosing and creating organizations, the tags screen, and the checks every form
 * passes before anything changes (its origin and the session's form token).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freshAddress, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../../support/http-server.js"
import { browser, dashboardPeople, fieldError, unescape } from "./dashboard-browser.js"

const forms = ["reference", "overview"] as const

describe.each(forms)("the dashboard in the %s deployment", (form) => {
  let server: TestHttpServer
  beforeAll(async () => {
    server = await startHttpServer({ form, adapters: UnlimitedRateLimiterLive })
  })
  afterAll(() => server.close())

  const { signedInBrowser, ownerWithOrganization } = dashboardPeople(() => server)

  describe("signing in", () => {
    it("sends a visitor without a session to the sign-in page, which speaks the browser's language", async () => {
      const b = browser(server)
      const start = await b.get("/app")
      expect(start.status).toBe(303)
      expect(start.headers.get("location")).toBe("/app/sign-in")
      const english = await b.get("/app/sign-in")
      expect(english.status).toBe(200)
      expect(english.body).toContain("<html lang=\"en\">")
      expect(english.body).toContain("Send me a sign-in link")
      const german = await b.get("/app/sign-in", { "accept-language": "de-CH,de;q=0.9,en;q=0.5" })
      expect(german.body).toContain("<html lang=\"de\">")
      expect(german.body).toContain("Anmeldelink senden")
    })

    it("answers every page with a policy that allows only the dashboard's own scripts and styles, and no caching", async () => {
      const page = await browser(server).get("/app/sign-in")
      const policy = page.headers.get("content-security-policy") ?? ""
      expect(policy).toContain("default-src 'none'")
      expect(policy).toContain("script-src 'self'")
      expect(policy).toContain("style-src 'self'")
      expect(policy).toContain("frame-ancestors 'none'")
      expect(policy).not.toContain("unsafe")
      expect(page.headers.get("cache-control")).toBe("no-store")
      expect(page.headers.get("x-frame-options")).toBe("DENY")
      expect(page.body).not.toMatch(/<script>|<style>| style="| on[a-z]+="/)
    })

    it("emails a link for a valid address, and shows a refusal beside the field for an invalid one", async () => {
      const b = browser(server)
      const wrong = await b.post("/app/sign-in", { email: "not an address" })
      expect(wrong.status).toBe(400)
      expect(fieldError(wrong, "email")).toContain("name@example.com")
      expect(wrong.body).toContain("aria-invalid=\"true\"")
      expect(wrong.body).toContain("value=\"not an address\"")

      const email = freshAddress("dashboard")
      const sent = await b.post("/app/sign-in", { email })
      expect(sent.status).toBe(200)
      expect(sent.body).toContain(email)
      const token = await server.signInTokenFor(email)
      const verified = await fetch(`${server.baseUrl}/auth/verify?token=${token}`)
      expect(verified.status).toBe(200)
      const cookie = verified.headers.getSetCookie().find((line) => line.startsWith("svc_session="))!.split(";")[0]!
      const signedIn = browser(server, cookie)
      const start = await signedIn.get("/app")
      expect(start.headers.get("location")).toBe("/app/organizations")
      const organizations = await signedIn.get("/app/organizations")
      expect(organizations.body).toContain(email)
      expect(organizations.body).toContain("You are not a member of any organization yet")
    })

    it("refuses a sign-in form posted from another site, and sends no email", async () => {
      const email = freshAddress("forged")
      const refused = await browser(server).post("/app/sign-in", { email }, { origin: "https://evil.example", "sec-fetch-site": "cross-site" })
      expect(refused.status).toBe(403)
      await new Promise((resolve) => setTimeout(resolve, 200))
      expect(server.emailCount(email)).toBe(0)
    })

    it("signs out: the session ends, and its cookie no longer opens a page", async () => {
      const { b, csrf, user } = await signedInBrowser()
      const out = await b.post("/app/sign-out", { csrf })
      expect(out.status).toBe(303)
      expect(out.headers.get("location")).toBe("/app/sign-in")
      expect(b.jar.has("svc_session")).toBe(false)
      const again = await browser(server, user.cookie).get("/app/organizations")
      expect(again.status).toBe(303)
      expect(again.headers.get("location")).toBe("/app/sign-in")
    })

    it("switches the language for later pages, and leads back only to the dashboard's own pages", async () => {
      const { b } = await signedInBrowser()
      const switched = await b.get(`/app/locale/de?back=${encodeURIComponent("/app/organizations")}`)
      expect(switched.status).toBe(303)
      expect(switched.headers.get("location")).toBe("/app/organizations")
      expect((await b.get("/app/organizations")).body).toContain("Ihre Organisationen")
      for (const back of ["//evil.example/app", "https://evil.example/", "/\\evil.example", "/api/v1/subscribers"]) {
        const away = await b.get(`/app/locale/en?back=${encodeURIComponent(back)}`)
        expect(away.headers.get("location")).toBe("/app")
      }
      const unknown = await b.get("/app/locale/fr?back=/app/organizations")
      expect(unknown.headers.get("location")).toBe("/app/organizations")
      expect(b.jar.get("roster_locale")).toBe("en")
    })
  })

  describe("organizations", () => {
    it("creates an organization whose creator is its owner, and opens it", async () => {
      const { b, base } = await ownerWithOrganization()
      const overview = await b.get(base)
      expect(overview.status).toBe(200)
      expect(unescape(overview.body)).toContain("Ada's <News> · Owner")
      expect(overview.body).toContain("Ada&#39;s &lt;News&gt;")
      expect(overview.body).toContain(`href="${base}/tags"`)
      expect(overview.body).toMatch(/Subscribers<\/div>\s*<div class="figure">0<\/div>/)
    })

    it("shows each refusal beside its field and keeps what was typed", async () => {
      const { b, csrf } = await signedInBrowser()
      const blank = await b.post("/app/organizations", { csrf, name: "", slug: "Not A Slug" })
      expect(blank.status).toBe(400)
      expect(fieldError(blank, "org-name")).toBeDefined()
      expect(fieldError(blank, "org-slug")).toContain("lower-case")
      expect(blank.body).toContain("value=\"Not A Slug\"")

      const { slug } = await ownerWithOrganization()
      const taken = await b.post("/app/organizations", { csrf, name: "Another", slug })
      expect(taken.status).toBe(409)
      expect(fieldError(taken, "org-slug")).toBe("That short name is taken already; choose another.")
    })

    it("changes nothing for a form without the session's token, with another session's token, or from another site", async () => {
      const { b, csrf } = await signedInBrowser()
      const other = await signedInBrowser()
      const slug = `forged-${Math.random().toString(36).slice(2, 10)}`
      const attempts = [
        await b.post("/app/organizations", { name: "Forged", slug }),
        await b.post("/app/organizations", { csrf: other.csrf, name: "Forged", slug }),
        await b.post("/app/organizations", { csrf, name: "Forged", slug }, { origin: "https://evil.example" }),
        await b.post("/app/organizations", { csrf, name: "Forged", slug }, { "sec-fetch-site": "cross-site" })
      ]
      for (const attempt of attempts) {
        expect(attempt.status).toBe(403)
        expect(unescape(attempt.body)).toContain("was not sent from Roster's own pages")
      }
      expect((await b.get("/app/organizations")).body).not.toContain(slug)
      expect((await b.get(`/app/o/${slug}`)).status).toBe(404)
    })

    it("lists every organization of a person in several, and shows a page of its own for one they are not in", async () => {
      const first = await ownerWithOrganization()
      const second = await first.b.post("/app/organizations", { csrf: first.csrf, name: "Second", slug: `${first.slug}-2` })
      expect(second.status).toBe(303)
      const start = await first.b.get("/app")
      expect(start.headers.get("location")).toBe("/app/organizations")
      const list = await first.b.get("/app/organizations")
      expect(list.body).toContain(`href="/app/o/${first.slug}"`)
      expect(list.body).toContain(`href="/app/o/${first.slug}-2"`)

      const stranger = await signedInBrowser()
      const elsewhere = await stranger.b.get(first.base)
      expect(elsewhere.status).toBe(404)
      expect(elsewhere.headers.get("content-type")).toContain("text/html")
      expect(elsewhere.body).toContain("not a member of the organization")
    })
  })

  describe("tags", () => {
    it("creates, lists with their counts, renames, describes and deletes tags", async () => {
      const { b, csrf, base } = await ownerWithOrganization()
      const made = await b.post(`${base}/tags`, { csrf, name: "Weekly <digest>", description: "Every Friday", visibility: "private" })
      expect(made.status).toBe(303)
      expect(made.headers.get("location")).toBe(`${base}/tags`)
      const list = await b.get(`${base}/tags`)
      expect(list.body).toContain("The tag Weekly &lt;digest&gt; was created.")
      expect(list.body).toContain("<td>Weekly &lt;digest&gt;</td>")
      expect(list.body).toContain("<td>Private</td>")
      expect(list.body).toMatch(/<td class="number">0<\/td>/)
      // The message is shown once.
      expect((await b.get(`${base}/tags`)).body).not.toContain("was created")

      const id = /\/tags\/([0-9a-f-]{36})\/edit/.exec(list.body)![1]!
      const edit = await b.get(`${base}/tags/${id}/edit`)
      expect(edit.status).toBe(200)
      expect(edit.body).toContain("value=\"Weekly &lt;digest&gt;\"")
      const saved = await b.post(`${base}/tags/${id}/edit`, { csrf, name: "Weekly", description: "", visibility: "public" })
      expect(saved.status).toBe(303)
      const after = await b.get(`${base}/tags`)
      expect(after.body).toContain("<td>Weekly</td>")
      expect(after.body).toContain("<td>Public</td>")

      const confirm = await b.get(`${base}/tags/${id}/delete`)
      expect(confirm.body).toContain("It is removed from 0 subscribers.")
      const deleted = await b.post(`${base}/tags/${id}/delete`, { csrf })
      expect(deleted.status).toBe(303)
      const empty = await b.get(`${base}/tags`)
      expect(empty.body).toContain("The tag Weekly was deleted.")
      expect(empty.body).toContain("No tags yet.")
      expect((await b.get(`${base}/tags/${id}/edit`)).status).toBe(404)
    })

    it("shows a taken name and a missing name beside the name field, in the person's language", async () => {
      const { b, csrf, base } = await ownerWithOrganization()
      await b.post(`${base}/tags`, { csrf, name: "News", visibility: "public" })
      const taken = await b.post(`${base}/tags`, { csrf, name: "news", visibility: "public" })
      expect(taken.status).toBe(409)
      expect(fieldError(taken, "tag-name")).toBe("That name is taken already.")
      expect(taken.body).toContain("value=\"news\"")
      await b.get("/app/locale/de?back=/app")
      const blank = await b.post(`${base}/tags`, { csrf, name: "  ", visibility: "public" })
      expect(blank.status).toBe(400)
      expect(fieldError(blank, "tag-name")).toBe("Geben Sie dem Tag einen Namen.")
    })

    it("does not show or change another organization's tag", async () => {
      const first = await ownerWithOrganization()
      await first.b.post(`${first.base}/tags`, { csrf: first.csrf, name: "Mine", visibility: "public" })
      const id = /\/tags\/([0-9a-f-]{36})\/edit/.exec((await first.b.get(`${first.base}/tags`)).body)![1]!
      const second = await ownerWithOrganization()
      expect((await second.b.get(`${second.base}/tags/${id}/edit`)).status).toBe(404)
      expect((await second.b.post(`${second.base}/tags/${id}/delete`, { csrf: second.csrf })).status).toBe(404)
      expect((await second.b.get(`${second.base}/tags/not-an-id/edit`)).status).toBe(404)
      expect((await first.b.get(`${first.base}/tags`)).body).toContain("<td>Mine</td>")
    })
  })

  describe("assets and addresses", () => {
    it("serves its script and stylesheet at addresses named by their content, kept for a year", async () => {
      const page = await browser(server).get("/app/sign-in")
      const script = /<script src="([^"]+)"/.exec(page.body)![1]!
      const style = /<link rel="stylesheet" href="([^"]+)"/.exec(page.body)![1]!
      expect(script).toMatch(/^\/app\/assets\/dashboard\.[0-9a-f]{12}\.js$/)
      expect(style).toMatch(/^\/app\/assets\/dashboard\.[0-9a-f]{12}\.css$/)
      const js = await fetch(`${server.baseUrl}${script}`)
      expect(js.headers.get("content-type")).toContain("text/javascript")
      expect(js.headers.get("cache-control")).toContain("immutable")
      expect(await js.text()).toContain("htmx")
      const css = await fetch(`${server.baseUrl}${style}`)
      expect(css.headers.get("content-type")).toContain("text/css")
    })

    it("answers an unknown dashboard address with a page, not an API error", async () => {
      const missing = await browser(server).get("/app/no/such/page")
      expect(missing.status).toBe(404)
      expect(missing.headers.get("content-type")).toContain("text/html")
      expect(missing.body).toContain("Not found")
    })
  })
})
