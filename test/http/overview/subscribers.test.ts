/**
 * Subscribers in the overview form (`API_FORM=overview`), over the real server: every endpoint's
 * status and envelope under `/v1` and `/api/v1`, tags by name, numbered pages and sorting.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../../support/http-server.js"
import {
  createSubscriber,
  createTag,
  expectError,
  expectInvalid,
  freshEmail,
  freshTagName,
  isoInstantPattern,
  uuidPattern
} from "./helpers.js"

let server: TestHttpServer
beforeAll(async () => {
  // The page walks send more requests than a plan allows in a minute.
  server = await startHttpServer({ form: "overview", adapters: UnlimitedRateLimiterLive })
})
afterAll(() => server.close())

describe("POST /v1/subscribers", () => {
  it("answers 201 with the subscriber in `data`, its names, and tags by name made on the way", async () => {
    const { key } = await server.seedOrganization()
    const email = freshEmail()
    const news = freshTagName("News")
    const answer = await call(server, "POST", "/v1/subscribers", {
      key,
      json: { email, first_name: " Ada ", last_name: "Lovelace", tags: [news], metadata: { plan: "gold" } }
    })
    expect(answer.status, answer.text).toBe(201)
    expect(answer.headers.get("content-type")).toMatch(/^application\/json/)
    expect(Object.keys(answer.body)).toEqual(["data"])
    const subscriber = answer.body.data
    expect(Object.keys(subscriber).sort()).toEqual(
      ["created_at", "email", "first_name", "id", "last_name", "metadata", "status", "tags", "updated_at"]
    )
    expect(subscriber).toMatchObject({
      email,
      status: "active",
      first_name: "Ada",
      last_name: "Lovelace",
      metadata: { plan: "gold" }
    })
    expect(subscriber.id).toMatch(uuidPattern)
    expect(subscriber.created_at).toMatch(isoInstantPattern)
    expect(subscriber.tags).toEqual([{ name: news, subscribed_at: expect.stringMatching(isoInstantPattern) }])

    const tags = await call(server, "GET", "/v1/tags", { key })
    expect(tags.body.data.map((t: { name: string }) => t.name)).toEqual([news])
    expect(tags.body.data[0].subscriber_count).toBe(1)
  })

  it("attaches an existing tag named in another letter case instead of making a second one", async () => {
    const { key } = await server.seedOrganization()
    const tag = await createTag(server, key, { name: "Weekly" })
    const subscriber = await createSubscriber(server, key, { tags: ["weekly"] })
    expect(subscriber.tags.map((t: { name: string }) => t.name)).toEqual([tag.name])
    const tags = await call(server, "GET", "/v1/tags", { key })
    expect(tags.body.meta.total).toBe(1)
  })

  it("is served the same under /api/v1", async () => {
    const { key } = await server.seedOrganization()
    const created = await call(server, "POST", "/api/v1/subscribers", { key, json: { email: freshEmail() } })
    expect(created.status, created.text).toBe(201)
    const got = await call(server, "GET", `/api/v1/subscribers/${created.body.data.id}`, { key })
    expect(got.status).toBe(200)
    expect(got.body).toEqual(created.body)
  })
})

describe("GET, PATCH and DELETE /v1/subscribers/:id", () => {
  it("gets, updates the names, status and metadata, and deletes a subscriber", async () => {
    const { key } = await server.seedOrganization()
    const subscriber = await createSubscriber(server, key, { first_name: "Ada" })

    const got = await call(server, "GET", `/v1/subscribers/${subscriber.id}`, { key })
    expect(got.status).toBe(200)
    expect(got.body).toEqual({ data: subscriber })

    const patched = await call(server, "PATCH", `/v1/subscribers/${subscriber.id}`, {
      key,
      json: { first_name: null, last_name: "Byron", status: "unsubscribed", metadata: { a: 1 } }
    })
    expect(patched.status, patched.text).toBe(200)
    expect(patched.body.data).toMatchObject({
      id: subscriber.id,
      first_name: null,
      last_name: "Byron",
      status: "unsubscribed",
      metadata: { a: 1 }
    })

    const deleted = await call(server, "DELETE", `/v1/subscribers/${subscriber.id}`, { key })
    expect(deleted.status).toBe(204)
    expect(deleted.text).toBe("")
    expectError(await call(server, "GET", `/v1/subscribers/${subscriber.id}`, { key }), "not_found")
  })

  it("a PATCH leaves fields it does not name as they are", async () => {
    const { key } = await server.seedOrganization()
    const subscriber = await createSubscriber(server, key, { first_name: "Ada", last_name: "King", metadata: { x: 1 } })
    const patched = await call(server, "PATCH", `/v1/subscribers/${subscriber.id}`, { key, json: { last_name: "Lovelace" } })
    expect(patched.body.data).toMatchObject({ first_name: "Ada", last_name: "Lovelace", status: "active", metadata: { x: 1 } })
  })
})

describe("GET and PATCH /v1/subscribers/:id/tags", () => {
  it("adds tags by name (making new ones), removes by name, and answers the tags carried afterwards", async () => {
    const { key } = await server.seedOrganization()
    const keep = freshTagName("Keep")
    const drop = freshTagName("Drop")
    const fresh = freshTagName("Fresh")
    const subscriber = await createSubscriber(server, key, { tags: [keep, drop] })

    const listed = await call(server, "GET", `/v1/subscribers/${subscriber.id}/tags`, { key })
    expect(listed.status).toBe(200)
    // Attached at the same moment: their order among themselves is not told.
    expect(listed.body.data.map((t: { name: string }) => t.name).sort()).toEqual([keep, drop].sort())

    const changed = await call(server, "PATCH", `/v1/subscribers/${subscriber.id}/tags`, {
      key,
      json: { add: [fresh], remove: [drop.toUpperCase(), "no such tag"] }
    })
    expect(changed.status, changed.text).toBe(200)
    expect(Object.keys(changed.body)).toEqual(["data"])
    expect(changed.body.data.map((t: { name: string }) => t.name)).toEqual([keep, fresh])
    for (const tag of changed.body.data) expect(tag.subscribed_at).toMatch(isoInstantPattern)

    const after = await call(server, "GET", `/v1/subscribers/${subscriber.id}`, { key })
    expect(after.body.data.tags.map((t: { name: string }) => t.name)).toEqual([keep, fresh])
    const tags = await call(server, "GET", "/v1/tags?sort=name", { key })
    expect(tags.body.data.map((t: { name: string }) => t.name).sort()).toEqual([drop, fresh, keep].sort())
  })

  it("refuses a name in both lists, and answers 404 for a subscriber that does not exist", async () => {
    const { key } = await server.seedOrganization()
    const subscriber = await createSubscriber(server, key)
    const both = await call(server, "PATCH", `/v1/subscribers/${subscriber.id}/tags`, { key, json: { add: ["a"], remove: ["a"] } })
    expectError(both, "validation_error")
    const missing = "01a1fcfc-0000-7000-8000-000000000000"
    expectError(await call(server, "PATCH", `/v1/subscribers/${missing}/tags`, { key, json: { add: ["a"] } }), "not_found")
    expectError(await call(server, "GET", `/v1/subscribers/${missing}/tags`, { key }), "not_found")
  })
})

describe("GET /v1/subscribers", () => {
  it("walks 120 subscribers with page and per_page, each exactly once, with the meta of every page", async () => {
    const { key } = await server.seedOrganization()
    const emails = new Set<string>()
    for (let i = 0; i < 120; i++) emails.add((await createSubscriber(server, key)).email)

    const seen: Array<string> = []
    for (let page = 1; page <= 5; page++) {
      const answer = await call(server, "GET", `/v1/subscribers?page=${page}&per_page=25`, { key })
      expect(answer.status, answer.text).toBe(200)
      expect(Object.keys(answer.body).sort()).toEqual(["data", "meta"])
      expect(answer.body.meta).toEqual({ total: 120, page, per_page: 25, total_pages: 5 })
      expect(answer.body.data.length).toBe(page < 5 ? 25 : 20)
      seen.push(...answer.body.data.map((s: { email: string }) => s.email))
    }
    expect(seen.length).toBe(120)
    expect(new Set(seen)).toEqual(emails)

    const beyond = await call(server, "GET", "/v1/subscribers?page=6&per_page=25", { key })
    expect(beyond.body).toEqual({ data: [], meta: { total: 120, page: 6, per_page: 25, total_pages: 5 } })

    const defaults = await call(server, "GET", "/v1/subscribers", { key })
    expect(defaults.body.meta).toEqual({ total: 120, page: 1, per_page: 50, total_pages: 3 })
    expect(defaults.body.data.length).toBe(50)
  })

  it("sorts by several fields, `-` for descending", async () => {
    const { key } = await server.seedOrganization()
    const made = [
      await createSubscriber(server, key, { email: `b-${freshEmail()}` }),
      await createSubscriber(server, key, { email: `a-${freshEmail()}` }),
      await createSubscriber(server, key, { email: `c-${freshEmail()}` })
    ]
    await call(server, "PATCH", `/v1/subscribers/${made[2].id}`, { key, json: { status: "unsubscribed" } })
    const emailsOf = (answer: { body: { data: Array<{ email: string }> } }) => answer.body.data.map((s) => s.email)

    const byEmail = await call(server, "GET", "/v1/subscribers?sort=email", { key })
    expect(emailsOf(byEmail)).toEqual([made[1].email, made[0].email, made[2].email])
    const byEmailDesc = await call(server, "GET", "/v1/subscribers?sort=-email", { key })
    expect(emailsOf(byEmailDesc)).toEqual([made[2].email, made[0].email, made[1].email])
    // "unsubscribed" after "active" descending, then by email descending among the active ones.
    const byStatusThenEmail = await call(server, "GET", "/v1/subscribers?sort=-status,-email", { key })
    expect(emailsOf(byStatusThenEmail)).toEqual([made[2].email, made[0].email, made[1].email])
    const byStatusThenEmailAsc = await call(server, "GET", "/v1/subscribers?sort=status,email", { key })
    expect(emailsOf(byStatusThenEmailAsc)).toEqual([made[1].email, made[0].email, made[2].email])
  })

  it("filters by status and by tag name", async () => {
    const { key } = await server.seedOrganization()
    const vip = freshTagName("Vip")
    const tagged = await createSubscriber(server, key, { tags: [vip] })
    const other = await createSubscriber(server, key)
    await call(server, "PATCH", `/v1/subscribers/${other.id}`, { key, json: { status: "unsubscribed" } })

    const byTag = await call(server, "GET", `/v1/subscribers?tag=${encodeURIComponent(vip.toLowerCase())}`, { key })
    expect(byTag.body.data.map((s: { id: string }) => s.id)).toEqual([tagged.id])
    expect(byTag.body.meta.total).toBe(1)
    const byStatus = await call(server, "GET", "/v1/subscribers?status=unsubscribed", { key })
    expect(byStatus.body.data.map((s: { id: string }) => s.id)).toEqual([other.id])
    const unknownTag = await call(server, "GET", "/v1/subscribers?tag=nothing-has-this", { key })
    expect(unknownTag.body).toEqual({ data: [], meta: { total: 0, page: 1, per_page: 50, total_pages: 0 } })
  })

  it("searches by the start of the email, letter case ignored, with status, tag and numbered pages", async () => {
    const { key } = await server.seedOrganization()
    const vip = freshTagName("Vip")
    const ada = await createSubscriber(server, key, { email: "Ada@example.com", tags: [vip] })
    await createSubscriber(server, key, { email: "adam@example.com" })
    await createSubscriber(server, key, { email: "a_b@example.com" })
    await createSubscriber(server, key, { email: "grace@example.com", tags: [vip] })
    await call(server, "PATCH", `/v1/subscribers/${ada.id}`, { key, json: { status: "unsubscribed" } })
    const list = async (query: string) => {
      const answer = await call(server, "GET", `/v1/subscribers?sort=email&${query}`, { key })
      expect(answer.status, answer.text).toBe(200)
      return answer.body
    }
    const emails = (body: { data: Array<{ email: string }> }) => body.data.map((s) => s.email)

    const first = await list("search=AD&per_page=1")
    expect(emails(first)).toEqual(["Ada@example.com"])
    expect(first.meta).toEqual({ total: 2, page: 1, per_page: 1, total_pages: 2 })
    expect(emails(await list("search=AD&per_page=1&page=2"))).toEqual(["adam@example.com"])
    expect(emails(await list("search=ad&status=active"))).toEqual(["adam@example.com"])
    expect(emails(await list(`search=ad&tag=${encodeURIComponent(vip)}`))).toEqual(["Ada@example.com"])
    expect(emails(await list("search=a_"))).toEqual(["a_b@example.com"])
    expect(await list("search=nobody")).toEqual({ data: [], meta: { total: 0, page: 1, per_page: 50, total_pages: 0 } })
  })

  it("answers 400 naming search for a text over 320 characters or holding a NUL", async () => {
    const { key } = await server.seedOrganization()
    expectInvalid(await call(server, "GET", `/v1/subscribers?search=${"a".repeat(321)}`, { key }), ["search"])
    expectInvalid(await call(server, "GET", "/v1/subscribers?search=ada%00", { key }), ["search"])
  })
})
