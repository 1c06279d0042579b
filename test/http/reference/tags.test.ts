import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startHttpServer, type TestHttpServer } from "../../support/http-server.js"
import {
  createSubscriber,
  createTag,
  expectInvalid,
  expectProblem,
  freshTagName,
  isoInstantPattern,
  uuidPattern
} from "../helpers.js"

let server: TestHttpServer
beforeAll(async () => {
  server = await startHttpServer()
})
afterAll(() => server.close())

describe("POST /api/v1/tags", () => {
  it("creates a tag with no subscribers, its slug made from the name, and answers 201 with every field", async () => {
    const { key } = await server.seedOrganization()
    const answer = await call(server, "POST", "/api/v1/tags", {
      key,
      json: { name: "  Café News! ", description: "Morning edition", metadata: { color: "red" } }
    })
    expect(answer.status).toBe(201)
    expect(answer.body).toEqual({
      id: expect.stringMatching(uuidPattern),
      name: "Café News!",
      slug: "cafe-news",
      description: "Morning edition",
      visibility: "public",
      metadata: { color: "red" },
      subscriber_count: 0,
      created_at: expect.stringMatching(isoInstantPattern),
      updated_at: answer.body.created_at
    })
  })

  it("keeps a slug given by the client; description and metadata default to null and {}", async () => {
    const { key } = await server.seedOrganization()
    const tag = await createTag(server, key, { name: "Weekly", slug: "the-weekly" })
    expect(tag).toMatchObject({ name: "Weekly", slug: "the-weekly", description: null, metadata: {} })
  })

  it("answers 409 conflict for a name taken in the organization, whatever its letter case", async () => {
    const { key } = await server.seedOrganization()
    await createTag(server, key, { name: "Launches" })
    const answer = await call(server, "POST", "/api/v1/tags", { key, json: { name: "LAUNCHES", slug: "other" } })
    expectProblem(answer, "conflict", "/api/v1/tags")
    expect(answer.body.detail).toContain("name")
  })

  it("answers 409 conflict for a slug taken in the organization", async () => {
    const { key } = await server.seedOrganization()
    await createTag(server, key, { name: "One", slug: "same" })
    const answer = await call(server, "POST", "/api/v1/tags", { key, json: { name: "Two", slug: "same" } })
    expectProblem(answer, "conflict", "/api/v1/tags")
    expect(answer.body.detail).toContain("slug")
  })

  it("lets another organization use the same name and slug", async () => {
    const first = await server.seedOrganization()
    const second = await server.seedOrganization()
    await createTag(server, first.key, { name: "Shared", slug: "shared" })
    await createTag(server, second.key, { name: "Shared", slug: "shared" })
  })

  it("answers 400 naming every bad field", async () => {
    const { key } = await server.seedOrganization()
    const answer = await call(server, "POST", "/api/v1/tags", {
      key,
      json: { name: "   ", slug: "Not A Slug", description: "x".repeat(1001), metadata: [], subscriber_count: 5 }
    })
    expectInvalid(answer, "/api/v1/tags", ["name", "slug", "description", "metadata", "subscriber_count"])
    expect(answer.body.errors).toHaveLength(5)
    expect(answer.body.detail).not.toContain("Expected null")
  })

  it("answers 400 naming slug when no slug can be made from the name", async () => {
    const { key } = await server.seedOrganization()
    expectInvalid(await call(server, "POST", "/api/v1/tags", { key, json: { name: "日本語" } }), "/api/v1/tags", ["slug"])
  })
})

describe("GET /api/v1/tags/{tag_id} and /api/v1/tags/by-name/{name}", () => {
  it("answers the tag by id and by its URL-encoded name, regardless of letter case", async () => {
    const { key } = await server.seedOrganization()
    const tag = await createTag(server, key, { name: "Product & Design/Updates" })
    const byId = await call(server, "GET", `/api/v1/tags/${tag.id}`, { key })
    expect(byId.status).toBe(200)
    expect(byId.body).toEqual(tag)
    const byName = await call(server, "GET", `/api/v1/tags/by-name/${encodeURIComponent("product & design/UPDATES")}`, {
      key
    })
    expect(byName.status).toBe(200)
    expect(byName.body).toEqual(tag)
  })

  it("answers 404 for an unknown id and an unknown name", async () => {
    const { key } = await server.seedOrganization()
    const byId = "/api/v1/tags/0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"
    expectProblem(await call(server, "GET", byId, { key }), "not_found", byId)
    const byName = "/api/v1/tags/by-name/Nothing%20here"
    expectProblem(await call(server, "GET", byName, { key }), "not_found", byName)
  })

  it("answers 400 naming tag_id for an id that is not a UUID", async () => {
    const { key } = await server.seedOrganization()
    expectInvalid(await call(server, "GET", "/api/v1/tags/abc", { key }), "/api/v1/tags/abc", ["tag_id"])
  })
})

describe("PUT /api/v1/tags/{tag_id}", () => {
  it("changes name, description and metadata, never the slug", async () => {
    const { key } = await server.seedOrganization()
    const tag = await createTag(server, key, { name: "Old Name", description: "old" })
    await new Promise((resolve) => setTimeout(resolve, 5))
    const answer = await call(server, "PUT", `/api/v1/tags/${tag.id}`, {
      key,
      json: { name: "New Name", description: null, metadata: { v: 2 } }
    })
    expect(answer.status).toBe(200)
    expect(answer.body).toMatchObject({ id: tag.id, name: "New Name", slug: "old-name", description: null, metadata: { v: 2 } })
    expect(answer.body.updated_at > tag.updated_at).toBe(true)
  })

  it("leaves out fields as they are", async () => {
    const { key } = await server.seedOrganization()
    const tag = await createTag(server, key, { description: "keep me" })
    const answer = await call(server, "PUT", `/api/v1/tags/${tag.id}`, { key, json: { metadata: { a: 1 } } })
    expect(answer.body).toMatchObject({ name: tag.name, description: "keep me", metadata: { a: 1 } })
  })

  it("answers 409 conflict when the new name is another tag's", async () => {
    const { key } = await server.seedOrganization()
    await createTag(server, key, { name: "Taken" })
    const tag = await createTag(server, key)
    const path = `/api/v1/tags/${tag.id}`
    expectProblem(await call(server, "PUT", path, { key, json: { name: "taken" } }), "conflict", path)
  })

  it("answers 400 when the slug is sent, and 404 for an unknown tag", async () => {
    const { key } = await server.seedOrganization()
    const tag = await createTag(server, key)
    const path = `/api/v1/tags/${tag.id}`
    expectInvalid(await call(server, "PUT", path, { key, json: { slug: "new-slug" } }), path, ["slug"])
    const unknown = "/api/v1/tags/0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"
    expectProblem(await call(server, "PUT", unknown, { key, json: { name: "x" } }), "not_found", unknown)
  })
})

describe("DELETE /api/v1/tags/{tag_id}", () => {
  it("deletes the tag and detaches it from its subscribers", async () => {
    const { key } = await server.seedOrganization()
    const tag = await createTag(server, key)
    const subscriber = await createSubscriber(server, key, { tags: [tag.id] })
    const path = `/api/v1/tags/${tag.id}`
    const answer = await call(server, "DELETE", path, { key })
    expect(answer.status).toBe(204)
    expect(answer.text).toBe("")
    expectProblem(await call(server, "GET", path, { key }), "not_found", path)
    const after = await call(server, "GET", `/api/v1/subscribers/${subscriber.id}`, { key })
    expect(after.body.tags).toEqual([])
    expectProblem(await call(server, "DELETE", path, { key }), "not_found", path)
  })
})

describe("GET /api/v1/tags", () => {
  it("lists by name ascending by default, with the total and a next page", async () => {
    const { key } = await server.seedOrganization()
    for (const name of ["charlie", "Alpha", "bravo"]) await createTag(server, key, { name })
    const page = await call(server, "GET", "/api/v1/tags?limit=2", { key })
    expect(page.status).toBe(200)
    expect(page.body.items.map((t: { name: string }) => t.name)).toEqual(["Alpha", "bravo"])
    expect(page.body.total).toBe(3)
    expect(page.headers.get("x-total-count")).toBe("3")
    const cursor = page.body.next_cursor
    expect(page.headers.get("link")).toBe(`</api/v1/tags?limit=2&cursor=${encodeURIComponent(cursor)}>; rel="next"`)
    const last = await call(server, "GET", `/api/v1/tags?limit=2&cursor=${encodeURIComponent(cursor)}`, { key })
    expect(last.body.items.map((t: { name: string }) => t.name)).toEqual(["charlie"])
    expect(last.body.next_cursor).toBeNull()
    expect(last.headers.get("link")).toBeNull()
  })

  it("sorts by subscriber_count and by created_at", async () => {
    const { key } = await server.seedOrganization()
    const quiet = await createTag(server, key, { name: freshTagName("Quiet") })
    const busy = await createTag(server, key, { name: freshTagName("Busy") })
    await createSubscriber(server, key, { tags: [busy.id] })
    await createSubscriber(server, key, { tags: [busy.id] })
    const byCount = await call(server, "GET", "/api/v1/tags?sort=subscriber_count&order=desc", { key })
    expect(byCount.body.items.map((t: { id: string }) => t.id)).toEqual([busy.id, quiet.id])
    expect(byCount.body.items[0].subscriber_count).toBe(2)
    const byCreation = await call(server, "GET", "/api/v1/tags?sort=created_at&order=asc", { key })
    expect(byCreation.body.items.map((t: { id: string }) => t.id)).toEqual([quiet.id, busy.id])
  })

  it("answers 400 for bad query values and a cursor of another sort", async () => {
    const { key } = await server.seedOrganization()
    await createTag(server, key)
    await createTag(server, key)
    expectInvalid(
      await call(server, "GET", "/api/v1/tags?limit=0&sort=email&order=sideways", { key }),
      "/api/v1/tags",
      ["limit", "sort", "order"]
    )
    const first = await call(server, "GET", "/api/v1/tags?limit=1", { key })
    const cursor = encodeURIComponent(first.body.next_cursor)
    expectInvalid(await call(server, "GET", `/api/v1/tags?sort=created_at&cursor=${cursor}`, { key }), "/api/v1/tags", [
      "cursor"
    ])
  })
})
