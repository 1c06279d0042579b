/**
 * One-click unsubscribe (RFC 8058) over the real server, in both wire forms: the POST a mail client
 * sends unsubscribes at once and again changes nothing; opening the link shows a page and changes
 * nothing; a link that no longer works shows a page saying so.
 */
import { OrganizationRepository, Outbox } from "@roster/application"
import { Organization, OrganizationId } from "@roster/domain"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startHttpServer, type TestHttpServer } from "../support/http-server.js"

const forms = ["reference", "overview"] as const
const servers = {} as Record<(typeof forms)[number], TestHttpServer>
beforeAll(async () => {
  for (const form of forms) servers[form] = await startHttpServer({ form })
})
afterAll(() => Promise.all(forms.map((form) => servers[form].close())))

/** A subscriber of a fresh organization, and a preference token for them. */
const subscriberWithLink = async (server: TestHttpServer) => {
  const { key, organization } = await server.seedOrganization()
  const api = server === servers.overview ? "/v1" : "/api/v1"
  const email = `reader-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}@example.com`
  const created = (await call(server, "POST", `${api}/subscribers`, { key, json: { email } })).body
  const subscriber = created.data ?? created
  const link = (await call(server, "POST", `${api}/subscribers/${subscriber.id}/token`, { key })).body
  return { key, api, organization, subscriber, token: (link.data ?? link).token as string }
}

const oneClick = (server: TestHttpServer, token: string) =>
  fetch(`${server.baseUrl}/unsubscribe?token=${encodeURIComponent(token)}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: "List-Unsubscribe=One-Click"
  })

const statusOf = async (server: TestHttpServer, api: string, key: string, id: string) => {
  const { body } = await call(server, "GET", `${api}/subscribers/${id}`, { key })
  return (body.data ?? body).status as string
}

for (const form of forms) {
  describe(`one-click unsubscribe, ${form} form`, () => {
    it("the mail client's POST unsubscribes at once, with no login; again, it changes nothing", async () => {
      const server = servers[form]
      const { api, key, organization, subscriber, token } = await subscriberWithLink(server)
      const first = await oneClick(server, token)
      expect(first.status).toBe(200)
      expect(first.headers.get("content-type")).toMatch(/^text\/html/)
      const page = await first.text()
      expect(page).toContain("You are unsubscribed")
      expect(page).toContain(subscriber.email)
      expect(await statusOf(server, api, key, subscriber.id)).toBe("unsubscribed")
      expect((await oneClick(server, token)).status).toBe(200)
      const events = await server.run(Effect.flatMap(Outbox, (outbox) => outbox.recorded(OrganizationId.make(organization.id))))
      const updates = events.filter((event) => event.type === "subscriber.updated")
      expect(updates).toHaveLength(1)
      expect(updates[0]!.data).toMatchObject({ changed: ["status"], subscriber: { status: "unsubscribed" } })
    })

    it("opening the link shows a page with a button that posts back, and changes nothing", async () => {
      const server = servers[form]
      const { api, key, subscriber, token } = await subscriberWithLink(server)
      const answer = await fetch(`${server.baseUrl}/unsubscribe?token=${encodeURIComponent(token)}`)
      expect(answer.status).toBe(200)
      const page = await answer.text()
      expect(page).toContain('method="post"')
      expect(page).toContain('name="List-Unsubscribe" value="One-Click"')
      expect(page).toContain(subscriber.email)
      expect(answer.headers.get("content-security-policy")).toContain("default-src 'none'")
      expect(answer.headers.get("referrer-policy")).toBe("no-referrer")
      expect(await statusOf(server, api, key, subscriber.id)).toBe("active")
    })

    it("speaks German when asked, by query or Accept-Language", async () => {
      const server = servers[form]
      const { token } = await subscriberWithLink(server)
      const byQuery = await fetch(`${server.baseUrl}/unsubscribe?token=${encodeURIComponent(token)}&locale=de`).then((r) => r.text())
      expect(byQuery).toContain('<html lang="de">')
      expect(byQuery).toContain("Abmelden")
      const byHeader = await fetch(`${server.baseUrl}/unsubscribe?token=${encodeURIComponent(token)}`, {
        headers: { "accept-language": "de-DE,de;q=0.9,en;q=0.5" }
      }).then((r) => r.text())
      expect(byHeader).toContain('<html lang="de">')
    })

    it("a broken, missing or revoked token shows a page that says the link no longer works, changing nothing", async () => {
      const server = servers[form]
      const { api, key, subscriber, token } = await subscriberWithLink(server)
      for (const url of ["/unsubscribe?token=broken", "/unsubscribe"]) {
        const answer = await fetch(`${server.baseUrl}${url}`, { method: "POST", body: "List-Unsubscribe=One-Click" })
        expect(answer.status).toBe(401)
        expect(answer.headers.get("content-type")).toMatch(/^text\/html/)
        expect(await answer.text()).toContain("This link no longer works")
      }
      await fetch(`${server.baseUrl}${api}/subscribers/${subscriber.id}/token`, { method: "DELETE", headers: { "x-api-key": key } })
      expect((await oneClick(server, token)).status).toBe(401)
      expect(await statusOf(server, api, key, subscriber.id)).toBe("active")
    })
  })
}

describe("the unsubscribe page", () => {
  it("keeps an organization's name as text, whatever it holds", async () => {
    const server = servers.reference
    const { organization, token } = await subscriberWithLink(server)
    await server.run(Effect.flatMap(OrganizationRepository, (organizations) =>
      organizations.update(new Organization({ ...organization, name: "<script>alert(1)</script> & Co" }))))
    const page = await fetch(`${server.baseUrl}/unsubscribe?token=${encodeURIComponent(token)}`).then((r) => r.text())
    expect(page).not.toContain("<script>alert(1)</script>")
    expect(page).toContain("&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co")
  })
})
