/**
 * What the preference page's forms post, over the real server: the answers a browser follows, and
 * the refusals of posts that do not come from the page itself.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startHttpServer, type TestHttpServer } from "../support/http-server.js"

let server: TestHttpServer
beforeAll(async () => {
  server = await startHttpServer()
})
afterAll(() => server.close())

const subscriberWithLink = async () => {
  const { key } = await server.seedOrganization()
  const tag = (await call(server, "POST", "/api/v1/tags", { key, json: { name: `News ${Date.now()}` } })).body
  const email = `reader-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}@example.com`
  const subscriber = (await call(server, "POST", "/api/v1/subscribers", { key, json: { email } })).body
  const token = (await call(server, "POST", `/api/v1/subscribers/${subscriber.id}/token`, { key })).body.token as string
  return { key, subscriber, tag, token }
}

const post = (token: string | undefined, body: string, headers: Record<string, string> = {}) =>
  fetch(`${server.baseUrl}/preference-center${token === undefined ? "" : `?token=${encodeURIComponent(token)}`}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body,
    redirect: "manual"
  })

describe("POST /preference-center (the page's forms)", () => {
  it("a change answers 303 back to the page, which says it was saved; the change is made", async () => {
    const { key, subscriber, tag, token } = await subscriberWithLink()
    const answer = await post(token, `action=subscribe&tag_id=${tag.id}`, { origin: "null", "sec-fetch-site": "same-origin" })
    expect(answer.status).toBe(303)
    const location = answer.headers.get("location")!
    expect(location).toMatch(/^\/preference-center\?token=.+&locale=en&saved=1$/)
    const page = await fetch(`${server.baseUrl}${location}`, { headers: { accept: "text/html" } })
    expect(await page.text()).toContain("Your preferences are saved.")
    expect((await call(server, "GET", `/api/v1/subscribers/${subscriber.id}`, { key })).body.tags).toHaveLength(1)
  })

  it("refuses a post from another site with 403, changing nothing", async () => {
    const { key, subscriber, token } = await subscriberWithLink()
    const fromElsewhere: ReadonlyArray<Record<string, string>> = [{ "sec-fetch-site": "cross-site" }, { origin: "https://evil.example" }]
    for (const headers of fromElsewhere) {
      const answer = await post(token, "action=unsubscribe_all", headers)
      expect(answer.status).toBe(403)
      expect(await answer.text()).toContain("This request was refused")
    }
    expect((await call(server, "GET", `/api/v1/subscribers/${subscriber.id}`, { key })).body.status).toBe("active")
  })

  it("answers 400 to a form that is not one of the page's, and 401 with a page to a broken link", async () => {
    const { token } = await subscriberWithLink()
    for (const body of ["", "action=explode", "action=subscribe", "action=subscribe&tag_id=not-an-id"]) {
      expect((await post(token, body)).status, body).toBe(400)
    }
    const broken = await post("broken", "action=unsubscribe_all")
    expect(broken.status).toBe(401)
    expect(await broken.text()).toContain("This link no longer works")
    expect((await post(undefined, "action=unsubscribe_all")).status).toBe(401)
  })

  it("a tag that is not the organization's changes nothing and answers the page again", async () => {
    const { key, subscriber, token } = await subscriberWithLink()
    const answer = await post(token, "action=subscribe&tag_id=0192f3a4-0000-7000-8000-000000000000")
    expect(answer.status).toBe(303)
    expect((await call(server, "GET", `/api/v1/subscribers/${subscriber.id}`, { key })).body.tags).toEqual([])
  })

  it("GET answers the page to browsers and JSON to everyone else", async () => {
    const { token } = await subscriberWithLink()
    const url = `/preference-center?token=${encodeURIComponent(token)}`
    const page = await call(server, "GET", url, { headers: { accept: "text/html,application/xhtml+xml" } })
    expect(page.headers.get("content-type")).toMatch(/^text\/html/)
    expect(page.headers.get("content-security-policy")).toContain("form-action 'self'")
    expect((await call(server, "GET", url)).headers.get("content-type")).toMatch(/^application\/json/)
  })
})

describe("rate limits of the preference center", () => {
  it("answers 429 rate_limited past 30 requests a minute with one link, with Retry-After; another link goes on", async () => {
    const limitedServer = await startHttpServer()
    try {
      const { key } = await limitedServer.seedOrganization()
      const links = []
      for (const email of ["a@example.com", "b@example.com"]) {
        const subscriber = (await call(limitedServer, "POST", "/api/v1/subscribers", { key, json: { email } })).body
        links.push((await call(limitedServer, "POST", `/api/v1/subscribers/${subscriber.id}/token`, { key })).body.token as string)
      }
      const view = (token: string) => call(limitedServer, "GET", `/preference-center?token=${encodeURIComponent(token)}`)
      for (let i = 0; i < 30; i++) expect((await view(links[0]!)).status).toBe(200)
      const refused = await view(links[0]!)
      expect(refused.status).toBe(429)
      expect(refused.body.type).toMatch(/\/rate_limited$/)
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0)
      const unsubscribe = await fetch(`${limitedServer.baseUrl}/unsubscribe?token=${encodeURIComponent(links[0]!)}`, { method: "POST" })
      expect(unsubscribe.status).toBe(429)
      expect((await view(links[1]!)).status).toBe(200)
    } finally {
      await limitedServer.close()
    }
  })

  it("answers 429 past 120 requests a minute from one client address, whatever the links", async () => {
    const limitedServer = await startHttpServer()
    try {
      const statuses: Array<number> = []
      for (let i = 0; i < 121; i++) {
        statuses.push((await fetch(`${limitedServer.baseUrl}/preference-center?token=guess-${i}`)).status)
      }
      expect(statuses.slice(0, 120).every((status) => status === 401)).toBe(true)
      expect(statuses[120]).toBe(429)
    } finally {
      await limitedServer.close()
    }
  })
})
