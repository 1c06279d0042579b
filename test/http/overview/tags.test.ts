/**
 * Tags in the overview form (`API_FORM=overview`), over the real server: every endpoint's status
 * and envelope, display names and categories, numbered pages, sorting and the category filter.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startHttpServer, type TestHttpServer } from "../../support/http-server.js"
import { createSubscriber, createTag, expectError, freshTagName, isoInstantPattern, uuidPattern } from "./helpers.js"

let server: TestHttpServer
beforeAll(async () => {
  server = await startHttpServer({ form: "overview" })
})
afterAll(() => server.close())

describe("POST /v1/tags", () => {
  it("answers 201 with the tag in `data`, with its display name and category", async () => {
    const { key } = await server.seedOrganization()
    const name = freshTagName("Weekly digest")
    const answer = await call(server, "POST", "/v1/tags", {
      key,
      json: { name, display_name: "The weekly digest", category: "interests", description: "every Monday", metadata: { a: 1 } }
    })
    expect(answer.status, answer.text).toBe(201)
    expect(Object.keys(answer.body)).toEqual(["data"])
    const tag = answer.body.data
    expect(Object.keys(tag).sort()).toEqual([
      "category",
      "created_at",
      "description",
      "display_name",
      "id",
      "metadata",
      "name",
      "slug",
      "subscriber_count",
      "updated_at",
      "visibility"
    ])
    expect(tag).toMatchObject({
      visibility: "public",
      name,
      display_name: "The weekly digest",
      category: "interests",
      description: "every Monday",
      metadata: { a: 1 },
      subscriber_count: 0
    })
    expect(tag.id).toMatch(uuidPattern)
    expect(tag.slug).toMatch(/^weekly-digest-/)
    expect(tag.updated_at).toMatch(isoInstantPattern)
  })

  it("answers 409 conflict in the error envelope for a name the organization has", async () => {
    const { key } = await server.seedOrganization()
    const tag = await createTag(server, key)
    expectError(await call(server, "POST", "/v1/tags", { key, json: { name: tag.name.toUpperCase() } }), "conflict")
  })
})

describe("GET, PATCH and DELETE /v1/tags/:id", () => {
  it("gets, updates and deletes a tag; deleting detaches it from its subscribers", async () => {
    const { key } = await server.seedOrganization()
    const tag = await createTag(server, key, { category: "source" })
    const subscriber = await createSubscriber(server, key, { tags: [tag.name] })

    const got = await call(server, "GET", `/v1/tags/${tag.id}`, { key })
    expect(got.status).toBe(200)
    expect(got.body.data).toMatchObject({ id: tag.id, subscriber_count: 1 })

    const patched = await call(server, "PATCH", `/v1/tags/${tag.id}`, {
      key,
      json: { display_name: "Shown", category: null, description: "d" }
    })
    expect(patched.status, patched.text).toBe(200)
    expect(patched.body.data).toMatchObject({ name: tag.name, slug: tag.slug, display_name: "Shown", category: null, description: "d" })

    const deleted = await call(server, "DELETE", `/v1/tags/${tag.id}`, { key })
    expect(deleted.status).toBe(204)
    expectError(await call(server, "GET", `/v1/tags/${tag.id}`, { key }), "not_found")
    const after = await call(server, "GET", `/v1/subscribers/${subscriber.id}`, { key })
    expect(after.body.data.tags).toEqual([])
  })
})

describe("GET /v1/tags", () => {
  it("pages with page and per_page, sorts by several fields, and filters by category", async () => {
    const { key } = await server.seedOrganization()
    const a = await createTag(server, key, { name: "alpha", category: "x" })
    const b = await createTag(server, key, { name: "bravo", category: "y" })
    const c = await createTag(server, key, { name: "charlie", category: "x" })
    const namesOf = (answer: { body: { data: Array<{ name: string }> } }) => answer.body.data.map((t) => t.name)

    const first = await call(server, "GET", "/v1/tags?per_page=2", { key })
    expect(first.status).toBe(200)
    expect(first.body.meta).toEqual({ total: 3, page: 1, per_page: 2, total_pages: 2 })
    expect(namesOf(first)).toEqual([a.name, b.name])
    const second = await call(server, "GET", "/v1/tags?per_page=2&page=2", { key })
    expect(namesOf(second)).toEqual([c.name])

    expect(namesOf(await call(server, "GET", "/v1/tags?sort=-name", { key }))).toEqual([c.name, b.name, a.name])
    expect(namesOf(await call(server, "GET", "/v1/tags?sort=category,-name", { key }))).toEqual([c.name, a.name, b.name])

    const inX = await call(server, "GET", "/v1/tags?category=x", { key })
    expect(namesOf(inX)).toEqual([a.name, c.name])
    expect(inX.body.meta.total).toBe(2)
  })
})
