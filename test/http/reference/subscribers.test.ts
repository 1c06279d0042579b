import { OrganizationRepository, SubscriberRepository } from "@roster/application"
import { type OrganizationId, Subscriber, SubscriberId, type SubscriberStatus } from "@roster/domain"
import { Effect, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startHttpServer, type TestHttpServer } from "../../support/http-server.js"
import {
  createSubscriber,
  createTag,
  expectInvalid,
  expectProblem,
  freshEmail,
  isoInstantPattern,
  uuidPattern
} from "../helpers.js"

/**
 * The whole suite runs twice: on a server whose direct lane serves an API key's creates and reads
 * of one subscriber, and on one that serves every request through the HttpApi's handlers.
 */
describe.each([
  { served: "with the direct lane", directLane: true },
  { served: "through the HttpApi alone", directLane: false }
])("subscribers, $served", ({ directLane }) => {
  let server: TestHttpServer
  beforeAll(async () => {
    server = await startHttpServer({ directLane })
  })
  afterAll(() => server.close())

  /** Moves a subscriber's status as the email provider would, through the repository. */
  const setStatusAsProvider = (organizationId: OrganizationId, id: string, status: SubscriberStatus) =>
    server.run(Effect.gen(function*() {
      const repository = yield* SubscriberRepository
      const current = Option.getOrThrow(yield* repository.findById(organizationId, SubscriberId.make(id)))
      yield* repository.update(new Subscriber({ ...current, status }))
    }))

  describe("POST /api/v1/subscribers", () => {
    it("creates an active subscriber and answers 201 with every field", async () => {
      const { key } = await server.seedOrganization()
      const email = freshEmail("Ada")
      const answer = await call(server, "POST", "/api/v1/subscribers", {
        key,
        json: { email: `  ${email}  `, metadata: { plan: "gold", visits: 3, nested: { ok: true } } }
      })
      expect(answer.status).toBe(201)
      expect(answer.headers.get("content-type")).toMatch(/^application\/json/)
      expect(answer.body).toEqual({
        id: expect.stringMatching(uuidPattern),
        email,
        status: "active",
        tags: [],
        metadata: { plan: "gold", visits: 3, nested: { ok: true } },
        created_at: expect.stringMatching(isoInstantPattern),
        updated_at: answer.body.created_at
      })
    })

    it("attaches the tags given by id, showing each as id, name and slug", async () => {
      const { key } = await server.seedOrganization()
      const weekly = await createTag(server, key, { name: "Weekly Digest" })
      const news = await createTag(server, key, { name: "News", slug: "breaking-news" })
      const subscriber = await createSubscriber(server, key, { tags: [weekly.id, news.id, weekly.id.toUpperCase()] })
      expect(subscriber.tags).toEqual([
        { id: weekly.id, name: "Weekly Digest", slug: "weekly-digest" },
        { id: news.id, name: "News", slug: "breaking-news" }
      ])
    })

    it("answers 409 conflict for an email that exists in the organization, whatever its letter case", async () => {
      const { key } = await server.seedOrganization()
      const email = freshEmail("grace")
      await createSubscriber(server, key, { email })
      const answer = await call(server, "POST", "/api/v1/subscribers", { key, json: { email: email.toUpperCase() } })
      expectProblem(answer, "conflict", "/api/v1/subscribers")
      expect(answer.body.detail).toContain("already exists")
    })

    it("lets another organization have a subscriber with the same email", async () => {
      const first = await server.seedOrganization()
      const second = await server.seedOrganization()
      const email = freshEmail("shared")
      await createSubscriber(server, first.key, { email })
      await createSubscriber(server, second.key, { email })
    })

    it("answers 402 limit_exceeded once the free plan's 1000 subscribers are reached", async () => {
      const organization = await server.createOrganization({ tier: "free" })
      const key = await server.createApiKey(organization)
      const reserved = await server.run(
        Effect.flatMap(OrganizationRepository, (repository) => repository.reserveSubscriberSlots(organization.id, 999, null))
      )
      expect(reserved).toBe(true)
      const last = await createSubscriber(server, key)
      const answer = await call(server, "POST", "/api/v1/subscribers", { key, json: { email: freshEmail() } })
      expectProblem(answer, "limit_exceeded", "/api/v1/subscribers")
      expect(answer.body.detail).toContain("1000")

      const deleted = await call(server, "DELETE", `/api/v1/subscribers/${last.id}`, { key })
      expect(deleted.status).toBe(204)
      await createSubscriber(server, key)
    })

    it("answers 400 naming the position of a tag id that is no tag of the organization", async () => {
      const { key } = await server.seedOrganization()
      const tag = await createTag(server, key)
      const answer = await call(server, "POST", "/api/v1/subscribers", {
        key,
        json: { email: freshEmail(), tags: [tag.id, "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"] }
      })
      expectInvalid(answer, "/api/v1/subscribers", ["tags[1]"])
    })

    it("answers 404 not_found at the path in another letter case or with a doubled slash, and creates nothing", async () => {
      const { key } = await server.seedOrganization()
      for (const path of ["/api/v1/Subscribers", "/API/V1/SUBSCRIBERS", "/api/v1//subscribers"]) {
        const answer = await call(server, "POST", path, { key, json: { email: freshEmail() } })
        expectProblem(answer, "not_found", path)
      }
      const list = await call(server, "GET", "/api/v1/subscribers", { key })
      expect(list.body.total).toBe(0)
    })

    it("answers 400 for an invalid email and creates nothing", async () => {
      const { key } = await server.seedOrganization()
      const answer = await call(server, "POST", "/api/v1/subscribers", { key, json: { email: "not an email" } })
      expectInvalid(answer, "/api/v1/subscribers", ["email"])
      const list = await call(server, "GET", "/api/v1/subscribers", { key })
      expect(list.body.total).toBe(0)
    })
  })

  describe("GET /api/v1/subscribers/{subscriber_id}", () => {
    it("answers the subscriber with its tags", async () => {
      const { key } = await server.seedOrganization()
      const tag = await createTag(server, key)
      const created = await createSubscriber(server, key, { tags: [tag.id] })
      const answer = await call(server, "GET", `/api/v1/subscribers/${created.id}`, { key })
      expect(answer.status).toBe(200)
      expect(answer.body).toEqual(created)
    })

    it("accepts the id in upper case", async () => {
      const { key } = await server.seedOrganization()
      const created = await createSubscriber(server, key)
      const answer = await call(server, "GET", `/api/v1/subscribers/${created.id.toUpperCase()}`, { key })
      expect(answer.status).toBe(200)
      expect(answer.body.id).toBe(created.id)
    })

    it("answers 404 not_found, titled Resource Not Found, for an id of nothing", async () => {
      const { key } = await server.seedOrganization()
      const path = "/api/v1/subscribers/0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"
      const answer = await call(server, "GET", path, { key })
      expectProblem(answer, "not_found", path)
      expect(answer.body.title).toBe("Resource Not Found")
    })

    it("answers 400 naming subscriber_id for an id that is not a UUID", async () => {
      const { key } = await server.seedOrganization()
      const answer = await call(server, "GET", "/api/v1/subscribers/12345", { key })
      expectInvalid(answer, "/api/v1/subscribers/12345", ["subscriber_id"])
    })
  })

  describe("GET /api/v1/subscribers/by-email/{email}", () => {
    it("finds the subscriber by its URL-encoded address, regardless of letter case", async () => {
      const { key } = await server.seedOrganization()
      const email = freshEmail("Mixed.Case+tag")
      const created = await createSubscriber(server, key, { email })
      const answer = await call(server, "GET", `/api/v1/subscribers/by-email/${encodeURIComponent(email.toLowerCase())}`, {
        key
      })
      expect(answer.status).toBe(200)
      expect(answer.body).toEqual(created)
    })

    it("finds a subscriber whose address has the longest length allowed, 254 characters", async () => {
      const { key } = await server.seedOrganization()
      const email = `${"l".repeat(64)}@${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(57)}.com`
      expect(email).toHaveLength(254)
      const created = await createSubscriber(server, key, { email })
      const answer = await call(server, "GET", `/api/v1/subscribers/by-email/${encodeURIComponent(email)}`, { key })
      expect(answer.status, answer.text).toBe(200)
      expect(answer.body.id).toBe(created.id)
    })

    it("answers 404 for an address no subscriber of the organization has", async () => {
      const other = await server.seedOrganization()
      const email = freshEmail("elsewhere")
      await createSubscriber(server, other.key, { email })
      const { key } = await server.seedOrganization()
      const path = `/api/v1/subscribers/by-email/${encodeURIComponent(email)}`
      expectProblem(await call(server, "GET", path, { key }), "not_found", path)
    })

    it("answers 400 naming email for an address that is not valid", async () => {
      const { key } = await server.seedOrganization()
      const path = "/api/v1/subscribers/by-email/no-at-sign"
      expectInvalid(await call(server, "GET", path, { key }), path, ["email"])
    })
  })

  describe("PUT /api/v1/subscribers/{subscriber_id}", () => {
    it("replaces the metadata and leaves the status as it is", async () => {
      const { key } = await server.seedOrganization()
      const created = await createSubscriber(server, key, { metadata: { a: 1, b: 2 } })
      await new Promise((resolve) => setTimeout(resolve, 5))
      const answer = await call(server, "PUT", `/api/v1/subscribers/${created.id}`, { key, json: { metadata: { c: 3 } } })
      expect(answer.status).toBe(200)
      expect(answer.body).toMatchObject({ id: created.id, email: created.email, status: "active", metadata: { c: 3 } })
      expect(answer.body.updated_at > created.updated_at).toBe(true)
      expect(answer.body.created_at).toBe(created.created_at)
    })

    it("moves active -> unsubscribed -> active and answers the subscriber each time", async () => {
      const { key } = await server.seedOrganization()
      const created = await createSubscriber(server, key, { metadata: { kept: true } })
      const path = `/api/v1/subscribers/${created.id}`
      const out = await call(server, "PUT", path, { key, json: { status: "unsubscribed" } })
      expect(out.status).toBe(200)
      expect(out.body).toMatchObject({ status: "unsubscribed", metadata: { kept: true } })
      const back = await call(server, "PUT", path, { key, json: { status: "active" } })
      expect(back.body.status).toBe("active")
    })

    it("changes nothing for an empty body", async () => {
      const { key } = await server.seedOrganization()
      const created = await createSubscriber(server, key)
      const answer = await call(server, "PUT", `/api/v1/subscribers/${created.id}`, { key, json: {} })
      expect(answer.status).toBe(200)
      expect(answer.body).toEqual(created)
    })

    it("reactivates a bounced subscriber", async () => {
      const { key, organization } = await server.seedOrganization()
      const created = await createSubscriber(server, key)
      await setStatusAsProvider(organization.id, created.id, "bounced")
      const answer = await call(server, "PUT", `/api/v1/subscribers/${created.id}`, { key, json: { status: "active" } })
      expect(answer.status).toBe(200)
      expect(answer.body.status).toBe("active")
    })

    it("answers 409 invalid_status_transition when a complained subscriber is to become active", async () => {
      const { key, organization } = await server.seedOrganization()
      const created = await createSubscriber(server, key)
      await setStatusAsProvider(organization.id, created.id, "complained")
      const path = `/api/v1/subscribers/${created.id}`
      const answer = await call(server, "PUT", path, { key, json: { status: "active" } })
      expectProblem(answer, "invalid_status_transition", path)
      expect(answer.body.detail).toContain("complained")
      const after = await call(server, "GET", path, { key })
      expect(after.body.status).toBe("complained")
    })

    it("answers 409 invalid_status_transition when the API sets bounced", async () => {
      const { key } = await server.seedOrganization()
      const created = await createSubscriber(server, key)
      const path = `/api/v1/subscribers/${created.id}`
      expectProblem(await call(server, "PUT", path, { key, json: { status: "bounced" } }), "invalid_status_transition", path)
    })

    it("answers 400 for a status that does not exist and for fields that cannot be changed", async () => {
      const { key } = await server.seedOrganization()
      const created = await createSubscriber(server, key)
      const path = `/api/v1/subscribers/${created.id}`
      const answer = await call(server, "PUT", path, {
        key,
        json: { status: "deleted", email: "new@example.com", organization_id: created.id }
      })
      expectInvalid(answer, path, ["status", "email", "organization_id"])
    })

    it("answers 404 for an id of nothing", async () => {
      const { key } = await server.seedOrganization()
      const path = "/api/v1/subscribers/0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"
      expectProblem(await call(server, "PUT", path, { key, json: { status: "unsubscribed" } }), "not_found", path)
    })
  })

  describe("DELETE /api/v1/subscribers/{subscriber_id}", () => {
    it("deletes permanently: 204 with no body, then 404", async () => {
      const { key } = await server.seedOrganization()
      const created = await createSubscriber(server, key)
      const path = `/api/v1/subscribers/${created.id}`
      const answer = await call(server, "DELETE", path, { key })
      expect(answer.status).toBe(204)
      expect(answer.text).toBe("")
      expectProblem(await call(server, "GET", path, { key }), "not_found", path)
      expectProblem(await call(server, "DELETE", path, { key }), "not_found", path)
    })

    it("frees the email for a new subscriber", async () => {
      const { key } = await server.seedOrganization()
      const email = freshEmail()
      const created = await createSubscriber(server, key, { email })
      await call(server, "DELETE", `/api/v1/subscribers/${created.id}`, { key })
      const again = await createSubscriber(server, key, { email })
      expect(again.id).not.toBe(created.id)
    })
  })

  describe("GET /api/v1/subscribers?search=", () => {
    const emailsOf = (answer: { body: { items: Array<{ email: string }> } }) => answer.body.items.map((s) => s.email)

    it("finds the subscribers whose email starts with the text, letter case ignored, with status and tag", async () => {
      const { key } = await server.seedOrganization()
      const tag = await createTag(server, key)
      const ada = await createSubscriber(server, key, { email: "Ada@example.com", tags: [tag.id] })
      await createSubscriber(server, key, { email: "adam@example.com" })
      await createSubscriber(server, key, { email: "grace@example.com", tags: [tag.id] })
      await call(server, "PUT", `/api/v1/subscribers/${ada.id}`, { key, json: { status: "unsubscribed" } })
      const list = (query: string) => call(server, "GET", `/api/v1/subscribers?sort=email&order=asc&${query}`, { key })

      const found = await list("search=AD")
      expect(found.status, found.text).toBe(200)
      expect(emailsOf(found)).toEqual(["Ada@example.com", "adam@example.com"])
      expect(found.body).toMatchObject({ total: 2, total_capped: false, next_cursor: null })
      expect(found.headers.get("x-total-count")).toBe("2")
      expect(emailsOf(await list("search=ada%40EXAMPLE.com"))).toEqual(["Ada@example.com"])
      expect(emailsOf(await list("search=ad&status=active"))).toEqual(["adam@example.com"])
      expect(emailsOf(await list(`search=ad&tag=${tag.id}`))).toEqual(["Ada@example.com"])
      expect((await list("search=nobody")).body).toEqual({ items: [], total: 0, total_capped: false, next_cursor: null })
      expect((await list("search=")).body.total).toBe(3)
    })

    it("takes %, _ and \\ as themselves", async () => {
      const { key } = await server.seedOrganization()
      await createSubscriber(server, key, { email: "a%b@example.com" })
      await createSubscriber(server, key, { email: "a_b@example.com" })
      await createSubscriber(server, key, { email: "axb@example.com" })
      const search = async (text: string) =>
        emailsOf(await call(server, "GET", `/api/v1/subscribers?sort=email&order=asc&search=${encodeURIComponent(text)}`, { key }))
      expect(await search("a%")).toEqual(["a%b@example.com"])
      expect(await search("a_")).toEqual(["a_b@example.com"])
      expect(await search("a\\")).toEqual([])
    })

    it("pages through a search by next_cursor, keeping the search in the Link", async () => {
      const { key } = await server.seedOrganization()
      for (let i = 0; i < 5; i++) await createSubscriber(server, key, { email: `news${i}@example.com` })
      await createSubscriber(server, key, { email: "other@example.com" })
      const seen: Array<string> = []
      let path: string | null = "/api/v1/subscribers?search=NEWS&limit=2&sort=email&order=asc&count=capped"
      while (path !== null) {
        const page = await call(server, "GET", path, { key })
        expect(page.status, page.text).toBe(200)
        expect(page.body).toMatchObject({ total: 5, total_capped: false })
        seen.push(...emailsOf(page))
        path = page.body.next_cursor === null ? null : /^<([^>]+)>/.exec(page.headers.get("link")!)![1]!
        if (path !== null) expect(new URL(path, server.baseUrl).searchParams.get("search")).toBe("NEWS")
      }
      expect(seen).toEqual([0, 1, 2, 3, 4].map((i) => `news${i}@example.com`))
    })

    it("answers 400 naming search for a text over 320 characters or holding a NUL, and count for an unknown way to count", async () => {
      const { key } = await server.seedOrganization()
      const path = "/api/v1/subscribers"
      expectInvalid(await call(server, "GET", `${path}?search=${"a".repeat(321)}`, { key }), path, ["search"])
      expectInvalid(await call(server, "GET", `${path}?search=ada%00`, { key }), path, ["search"])
      expectInvalid(await call(server, "GET", `${path}?count=estimate`, { key }), path, ["count"])
      expect((await call(server, "GET", `${path}?search=${"a".repeat(320)}`, { key })).status).toBe(200)
    })
  })

  describe("tags of a subscriber", () => {
    it("POST .../tags attaches tags and answers the updated subscriber; attaching again changes nothing", async () => {
      const { key } = await server.seedOrganization()
      const first = await createTag(server, key)
      const second = await createTag(server, key)
      const subscriber = await createSubscriber(server, key, { tags: [first.id] })
      const path = `/api/v1/subscribers/${subscriber.id}/tags`
      const answer = await call(server, "POST", path, { key, json: { tag_ids: [second.id, first.id] } })
      expect(answer.status).toBe(200)
      expect(answer.body.id).toBe(subscriber.id)
      expect(answer.body.tags.map((t: { id: string }) => t.id)).toEqual([first.id, second.id])
      const again = await call(server, "POST", path, { key, json: { tag_ids: [second.id] } })
      expect(again.body.tags).toEqual(answer.body.tags)
      const counted = await call(server, "GET", `/api/v1/tags/${second.id}`, { key })
      expect(counted.body.subscriber_count).toBe(1)
    })

    it("GET .../tags lists the tags with the time each was attached, in one page", async () => {
      const { key } = await server.seedOrganization()
      const tag = await createTag(server, key, { name: "Product Updates" })
      const subscriber = await createSubscriber(server, key, { tags: [tag.id] })
      const answer = await call(server, "GET", `/api/v1/subscribers/${subscriber.id}/tags`, { key })
      expect(answer.status).toBe(200)
      expect(answer.body).toEqual({
        items: [{ id: tag.id, name: "Product Updates", slug: "product-updates", subscribed_at: subscriber.created_at }],
        total: 1,
        next_cursor: null
      })
    })

    it("DELETE .../tags/{tag_id} detaches the tag: 204, and again 204", async () => {
      const { key } = await server.seedOrganization()
      const tag = await createTag(server, key)
      const subscriber = await createSubscriber(server, key, { tags: [tag.id] })
      const path = `/api/v1/subscribers/${subscriber.id}/tags/${tag.id}`
      const answer = await call(server, "DELETE", path, { key })
      expect(answer.status).toBe(204)
      expect(answer.text).toBe("")
      const listed = await call(server, "GET", `/api/v1/subscribers/${subscriber.id}/tags`, { key })
      expect(listed.body).toEqual({ items: [], total: 0, next_cursor: null })
      expect((await call(server, "DELETE", path, { key })).status).toBe(204)
    })

    it("answers 404 for a tag or a subscriber that does not exist", async () => {
      const { key } = await server.seedOrganization()
      const subscriber = await createSubscriber(server, key)
      const nothing = "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"
      const noTag = `/api/v1/subscribers/${subscriber.id}/tags/${nothing}`
      expectProblem(await call(server, "DELETE", noTag, { key }), "not_found", noTag)
      const noSubscriber = `/api/v1/subscribers/${nothing}/tags`
      expectProblem(await call(server, "GET", noSubscriber, { key }), "not_found", noSubscriber)
      expectProblem(await call(server, "POST", noSubscriber, { key, json: { tag_ids: [] } }), "not_found", noSubscriber)
    })

    it("answers 400 naming tag_ids for an id that is no tag and for a missing list", async () => {
      const { key } = await server.seedOrganization()
      const subscriber = await createSubscriber(server, key)
      const path = `/api/v1/subscribers/${subscriber.id}/tags`
      const unknown = await call(server, "POST", path, { key, json: { tag_ids: ["0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"] } })
      expectInvalid(unknown, path, ["tag_ids[0]"])
      expectInvalid(await call(server, "POST", path, { key, json: {} }), path, ["tag_ids"])
    })
  })
})
