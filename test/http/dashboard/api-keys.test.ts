/**
 * The dashboard's API keys screen through the running server, in both deployments: a key made
 * with the scopes ticked is shown once and works against the API at once; rotating stops the old
 * key, revoking stops it for good; members are refused, by the menu and by the use case alike.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, freshAddress, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../../support/http-server.js"
import { browser, csrfOf, dashboardPeople, fieldError, type Page, unescape } from "./dashboard-browser.js"

const forms = ["reference", "overview"] as const

/** The full key on the page that shows it once. */
const shownKey = (page: Page) => /id="new-key-value"[^>]*value="(svc_(?:live|test)_[0-9A-Za-z]+)"/.exec(page.body)?.[1]
const keyIdsOf = (page: Page, action: "rotate" | "revoke") =>
  [...page.body.matchAll(new RegExp(`/api-keys/([0-9a-f-]{36})/${action}"`, "g"))].map((match) => match[1]!)

describe.each(forms)("the API keys screen in the %s deployment", (form) => {
  let server: TestHttpServer
  beforeAll(async () => {
    server = await startHttpServer({ form, adapters: UnlimitedRateLimiterLive })
  })
  afterAll(() => server.close())

  const { ownerWithOrganization } = dashboardPeople(() => server)
  const subscribersPath = form === "reference" ? "/api/v1/subscribers" : "/v1/subscribers"
  const tagsPath = form === "reference" ? "/api/v1/tags" : "/v1/tags"

  /** A person the owner invites through the members screen, signed in with the emailed link. */
  const invited = async (owner: Awaited<ReturnType<typeof ownerWithOrganization>>, role: "owner" | "member") => {
    const email = freshAddress("invited")
    const sent = await owner.b.post(`${owner.base}/members`, { csrf: owner.csrf, email, role })
    expect(sent.status).toBe(303)
    const token = await server.signInTokenFor(email)
    const verified = await fetch(`${server.baseUrl}/auth/verify?token=${encodeURIComponent(token)}`)
    expect(verified.status).toBe(200)
    const cookie = verified.headers.getSetCookie().find((line) => line.startsWith("svc_session="))!.split(";")[0]!
    const b = browser(server, cookie)
    return { b, email, csrf: csrfOf(await b.get("/app/organizations")) }
  }

  /** Creates a key through the form and answers the page that shows it. */
  const createKey = async (
    owner: Awaited<ReturnType<typeof ownerWithOrganization>>,
    fields: { readonly name: string; readonly scopes: ReadonlyArray<string>; readonly environment?: string }
  ) => {
    const body = new URLSearchParams({ csrf: owner.csrf, name: fields.name, environment: fields.environment ?? "test" })
    for (const scope of fields.scopes) body.append("scopes", scope)
    const response = await fetch(`${server.baseUrl}${owner.base}/api-keys`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie: [...owner.b.jar].map(([name, value]) => `${name}=${value}`).join("; "), "content-type": "application/x-www-form-urlencoded" },
      body: body.toString()
    })
    return { status: response.status, headers: response.headers, body: await response.text() } satisfies Page
  }

  it("lists every scope as a checkbox, makes a key with those ticked, shows it once without caching, and the key works at once", async () => {
    const owner = await ownerWithOrganization()
    const empty = await owner.b.get(`${owner.base}/api-keys`)
    expect(empty.status).toBe(200)
    expect(empty.body).toContain("No API keys yet.")
    for (const scope of ["subscribers:read", "subscribers:write", "tags:write", "webhooks:manage", "*"]) {
      expect(empty.body).toContain(`type="checkbox" name="scopes" value="${scope}"`)
    }
    expect(empty.body).toContain("aria-current=\"page\">API keys</a>")

    const issued = await createKey(owner, { name: "CRM sync", scopes: ["subscribers:read"] })
    expect(issued.status).toBe(200)
    expect(issued.headers.get("cache-control")).toBe("no-store")
    expect(issued.headers.get("location")).toBeNull()
    expect(issued.headers.getSetCookie()).toEqual([])
    const key = shownKey(issued)!
    expect(key).toMatch(/^svc_test_/)
    expect(issued.body).toContain("readonly")
    expect(issued.body).toContain("data-copy=\"new-key-value\"")
    expect(issued.body).toContain("It is shown only this once")

    expect((await call(server, "GET", subscribersPath, { key })).status).toBe(200)
    // Only the scope ticked: tags are another scope.
    expect((await call(server, "GET", tagsPath, { key })).status).toBe(403)

    const list = await owner.b.get(`${owner.base}/api-keys`)
    expect(list.body).toContain("CRM sync")
    expect(list.body).toContain(`${key.slice(0, 13)}…${key.slice(-4)}`)
    expect(list.body).toContain("<code class=\"scope\">subscribers:read</code>")
    expect(list.body).toMatch(/<time datetime="[^"]+">/)
    expect(list.body).toContain("Active")
    expect(list.body).not.toContain(key)
    expect((await owner.b.get(owner.base)).body).not.toContain(key)
  })

  it("makes a live key with every permission when * is ticked", async () => {
    const owner = await ownerWithOrganization()
    const issued = await createKey(owner, { name: "Everything", scopes: ["*"], environment: "live" })
    const key = shownKey(issued)!
    expect(key).toMatch(/^svc_live_/)
    expect((await call(server, "GET", tagsPath, { key })).status).toBe(200)
    expect((await owner.b.get(`${owner.base}/api-keys`)).body).toContain("Live")
  })

  it("refuses a key without a name or without scopes beside the field, keeping what was chosen", async () => {
    const owner = await ownerWithOrganization()
    const noName = await createKey(owner, { name: "", scopes: ["tags:read"] })
    expect(noName.status).toBe(400)
    expect(fieldError(noName, "key-name")).toBe("Give the key a name.")
    expect(noName.body).toContain("value=\"tags:read\" checked")
    const noScopes = await createKey(owner, { name: "Nothing", scopes: [] })
    expect(noScopes.status).toBe(400)
    expect(fieldError(noScopes, "key-scopes")).toBe("Choose at least one scope.")
    expect(noScopes.body).toContain("value=\"Nothing\"")
    const unknownScope = await createKey(owner, { name: "Made up", scopes: ["everything:please"] })
    expect(unknownScope.status).toBe(400)
    expect(fieldError(unknownScope, "key-scopes")).toBe("Choose at least one scope.")
    const tooLong = await createKey(owner, { name: "x".repeat(101), scopes: ["tags:read"] })
    expect(tooLong.status).toBe(400)
    expect(fieldError(tooLong, "key-name")).toBe("Use at most 100 characters, and no control characters.")
    expect((await owner.b.get(`${owner.base}/api-keys`)).body).toContain("No API keys yet.")
  })

  it("rotates a key after a confirmation: the new key is shown once and the old one stops working", async () => {
    const owner = await ownerWithOrganization()
    const old = shownKey(await createKey(owner, { name: "Importer", scopes: ["subscribers:read"] }))!
    const [id] = keyIdsOf(await owner.b.get(`${owner.base}/api-keys`), "rotate")
    const confirm = await owner.b.get(`${owner.base}/api-keys/${id}/rotate`)
    expect(confirm.status).toBe(200)
    expect(unescape(confirm.body)).toContain("Rotate the key Importer?")
    expect(confirm.body).not.toContain(old)
    const rotated = await owner.b.post(`${owner.base}/api-keys/${id}/rotate`, { csrf: owner.csrf })
    expect(rotated.status).toBe(200)
    expect(rotated.headers.get("cache-control")).toBe("no-store")
    const fresh = shownKey(rotated)!
    expect(fresh).not.toBe(old)
    expect((await call(server, "GET", subscribersPath, { key: old })).status).toBe(401)
    expect((await call(server, "GET", subscribersPath, { key: fresh })).status).toBe(200)
    expect((await owner.b.get(`${owner.base}/api-keys`)).body).not.toContain(fresh)
  })

  it("revokes a key after a confirmation: it stops working and stays listed as revoked, with no more actions", async () => {
    const owner = await ownerWithOrganization()
    const key = shownKey(await createKey(owner, { name: "Old job", scopes: ["subscribers:read"] }))!
    const [id] = keyIdsOf(await owner.b.get(`${owner.base}/api-keys`), "revoke")
    const confirm = await owner.b.get(`${owner.base}/api-keys/${id}/revoke`)
    expect(unescape(confirm.body)).toContain("Revoke the key Old job?")
    const revoked = await owner.b.post(`${owner.base}/api-keys/${id}/revoke`, { csrf: owner.csrf })
    expect(revoked.status).toBe(303)
    expect(revoked.headers.get("location")).toBe(`${owner.base}/api-keys`)
    const list = await owner.b.get(`${owner.base}/api-keys`)
    expect(list.body).toContain("The key Old job was revoked.")
    expect(list.body).toMatch(/Revoked <time datetime="/)
    expect(keyIdsOf(list, "rotate")).toEqual([])
    expect((await call(server, "GET", subscribersPath, { key })).status).toBe(401)
    // Rotating a revoked key is refused by the use case, and says why.
    const rotate = await owner.b.post(`${owner.base}/api-keys/${id}/rotate`, { csrf: owner.csrf })
    expect(rotate.status).toBe(400)
    expect(rotate.body).toContain("revoked and cannot be rotated")
  })

  it("answers an unknown or malformed key id with a not-found page, and another organization's key too", async () => {
    const owner = await ownerWithOrganization()
    const other = await ownerWithOrganization()
    shownKey(await createKey(other, { name: "Theirs", scopes: ["tags:read"] }))
    const [theirs] = keyIdsOf(await other.b.get(`${other.base}/api-keys`), "revoke")
    expect((await owner.b.get(`${owner.base}/api-keys/not-an-id/revoke`)).status).toBe(404)
    expect((await owner.b.get(`${owner.base}/api-keys/00000000-0000-4000-8000-000000000000/rotate`)).status).toBe(404)
    const foreign = await owner.b.post(`${owner.base}/api-keys/${theirs}/revoke`, { csrf: owner.csrf })
    expect(foreign.status).toBe(404)
    expect((await other.b.get(`${other.base}/api-keys`)).body).toContain("Active")
  })

  it("hides the screen from a member, and refuses them by typed address and by post", async () => {
    const owner = await ownerWithOrganization()
    const key = shownKey(await createKey(owner, { name: "Owner's", scopes: ["subscribers:read"] }))!
    const [id] = keyIdsOf(await owner.b.get(`${owner.base}/api-keys`), "revoke")
    const member = await invited(owner, "member")
    const start = await member.b.get(owner.base)
    expect(start.status).toBe(200)
    expect(start.body).not.toContain(`${owner.base}/api-keys`)
    expect(start.body).toContain(`${owner.base}/members`)

    const typed = await member.b.get(`${owner.base}/api-keys`)
    expect(typed.status).toBe(403)
    expect(typed.body).toContain("Your role in this organization does not allow this.")
    expect(typed.body).not.toContain("Owner&#39;s")
    const create = await member.b.post(`${owner.base}/api-keys`, { csrf: member.csrf, name: "Mine", scopes: "*" })
    expect(create.status).toBe(403)
    expect(create.body).not.toMatch(/svc_(live|test)_/)
    expect((await member.b.get(`${owner.base}/api-keys/${id}/rotate`)).status).toBe(403)
    expect((await member.b.post(`${owner.base}/api-keys/${id}/rotate`, { csrf: member.csrf })).status).toBe(403)
    expect((await member.b.post(`${owner.base}/api-keys/${id}/revoke`, { csrf: member.csrf })).status).toBe(403)
    expect((await call(server, "GET", subscribersPath, { key })).status).toBe(200)
    expect((await owner.b.get(`${owner.base}/api-keys`)).body).not.toContain("Mine")
  })

  it("changes nothing for a forged post without the form token", async () => {
    const owner = await ownerWithOrganization()
    const key = shownKey(await createKey(owner, { name: "Kept", scopes: ["subscribers:read"] }))!
    const [id] = keyIdsOf(await owner.b.get(`${owner.base}/api-keys`), "revoke")
    const forgedCreate = await owner.b.post(`${owner.base}/api-keys`, { name: "Forged", scopes: "*" })
    expect(forgedCreate.status).toBe(403)
    expect(forgedCreate.body).not.toMatch(/svc_(live|test)_/)
    expect((await owner.b.post(`${owner.base}/api-keys/${id}/revoke`, {})).status).toBe(403)
    expect((await owner.b.post(`${owner.base}/api-keys/${id}/rotate`, { csrf: "wrong" })).status).toBe(403)
    const list = await owner.b.get(`${owner.base}/api-keys`)
    expect(list.body).not.toContain("Forged")
    expect(list.body).toContain("Active")
    expect((await call(server, "GET", subscribersPath, { key })).status).toBe(200)
  })

  it("speaks German", async () => {
    const owner = await ownerWithOrganization()
    const page = await owner.b.get(`${owner.base}/api-keys`, { "accept-language": "de" })
    expect(page.body).toContain("<h1>API-Schlüssel</h1>")
    expect(page.body).toContain("Abonnenten und ihre Tags lesen")
    const noName = await owner.b.post(`${owner.base}/api-keys`, { csrf: owner.csrf, name: "", scopes: "tags:read" }, { "accept-language": "de" })
    expect(fieldError(noName, "key-name")).toBe("Geben Sie dem Schlüssel einen Namen.")
  })
})
