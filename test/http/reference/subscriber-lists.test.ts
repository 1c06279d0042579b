import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  type Answer,
  call,
  startHttpServer,
  type TestHttpServer,
  UnlimitedRateLimiterLive
} from "../../support/http-server.js"
import { createSubscriber, createTag, expectInvalid, freshEmail } from "../helpers.js"

let server: TestHttpServer
let key: string
/** Ids of the 120 subscribers of the walked organization, in creation order. */
let created: Array<string>

beforeAll(async () => {
  // More requests a minute than a free organization may send.
  server = await startHttpServer({ adapters: UnlimitedRateLimiterLive })
  ;({ key } = await server.seedOrganization())
  created = []
  for (let i = 0; i < 120; i++) {
    created.push((await createSubscriber(server, key, { email: `reader-${String(i).padStart(3, "0")}@example.com` })).id)
  }
})
afterAll(() => server.close())

/** `<...>; rel="next"` of a Link header, or null. */
const nextLink = (answer: Answer): string | null => {
  const header = answer.headers.get("link")
  if (header === null) return null
  const match = /^<([^>]+)>; rel="next"$/.exec(header)
  expect(match, header).not.toBeNull()
  return match![1]!
}

const ids = (answer: Answer): Array<string> => answer.body.items.map((s: { id: string }) => s.id)

describe("GET /api/v1/subscribers", () => {
  it("walks 120 subscribers 25 at a time by next_cursor, seeing each exactly once", async () => {
    const seen: Array<string> = []
    const sizes: Array<number> = []
    let cursor: string | null = null
    do {
      const query: string = cursor === null ? "?limit=25" : `?limit=25&cursor=${encodeURIComponent(cursor)}`
      const page = await call(server, "GET", `/api/v1/subscribers${query}`, { key })
      expect(page.status).toBe(200)
      expect(page.body.total).toBe(120)
      expect(page.headers.get("x-total-count")).toBe("120")
      sizes.push(page.body.items.length)
      seen.push(...ids(page))
      cursor = page.body.next_cursor
      if (cursor === null) expect(page.headers.get("link")).toBeNull()
      else expect(nextLink(page)).toBe(`/api/v1/subscribers?limit=25&cursor=${encodeURIComponent(cursor)}`)
    } while (cursor !== null)
    expect(sizes).toEqual([25, 25, 25, 25, 20])
    expect(new Set(seen).size).toBe(120)
    expect([...seen].sort()).toEqual([...created].sort())
  })

  it("walks the same 120 by following the Link header, newest first by default", async () => {
    const seen: Array<string> = []
    let link: string | null = "/api/v1/subscribers?limit=25"
    let pages = 0
    while (link !== null) {
      const page = await call(server, "GET", link, { key })
      expect(page.status).toBe(200)
      seen.push(...ids(page))
      link = nextLink(page)
      pages++
    }
    expect(pages).toBe(5)
    expect(seen).toEqual([...created].reverse())
  })

  it("keeps every other query parameter in the Link of the next page", async () => {
    const page = await call(server, "GET", "/api/v1/subscribers?sort=email&order=asc&limit=10&status=active", { key })
    const link = new URL(nextLink(page)!, server.baseUrl)
    expect(link.pathname).toBe("/api/v1/subscribers")
    expect(Object.fromEntries(link.searchParams)).toEqual({
      sort: "email",
      order: "asc",
      limit: "10",
      status: "active",
      cursor: page.body.next_cursor
    })
  })

  it("answers 50 items by default", async () => {
    const page = await call(server, "GET", "/api/v1/subscribers", { key })
    expect(page.body.items).toHaveLength(50)
    expect(page.body.next_cursor).toEqual(expect.any(String))
  })

  it("sorts by email in both directions", async () => {
    const asc = await call(server, "GET", "/api/v1/subscribers?sort=email&order=asc&limit=3", { key })
    expect(asc.body.items.map((s: { email: string }) => s.email)).toEqual([
      "reader-000@example.com",
      "reader-001@example.com",
      "reader-002@example.com"
    ])
    const desc = await call(server, "GET", "/api/v1/subscribers?sort=email&order=desc&limit=1", { key })
    expect(desc.body.items[0].email).toBe("reader-119@example.com")
  })

  it("sorts by created_at and updated_at ascending", async () => {
    const created_ = await call(server, "GET", "/api/v1/subscribers?sort=created_at&order=asc&limit=2", { key })
    expect(ids(created_)).toEqual(created.slice(0, 2))
    const updated = await call(server, "GET", "/api/v1/subscribers?sort=updated_at&order=asc&limit=2", { key })
    expect(ids(updated)).toEqual(created.slice(0, 2))
  })

  it("answers 400 naming cursor for a cursor reused with another sort", async () => {
    const first = await call(server, "GET", "/api/v1/subscribers?limit=5", { key })
    const cursor = encodeURIComponent(first.body.next_cursor)
    const answer = await call(server, "GET", `/api/v1/subscribers?limit=5&sort=email&cursor=${cursor}`, { key })
    expectInvalid(answer, "/api/v1/subscribers", ["cursor"])
    const otherOrder = await call(server, "GET", `/api/v1/subscribers?limit=5&order=asc&cursor=${cursor}`, { key })
    expectInvalid(otherOrder, "/api/v1/subscribers", ["cursor"])
  })

  it("answers 400 naming cursor for a cursor it never issued", async () => {
    const handMade = (value: unknown) =>
      Buffer.from(JSON.stringify(["email", "desc", value, "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"])).toString("base64url")
    for (const cursor of ["", "garbage", "eyJhIjoxfQ", "W10", "%00%01", handMade("a\u0000b"), handMade(42)]) {
      const answer = await call(server, "GET", `/api/v1/subscribers?sort=email&cursor=${cursor}`, { key })
      expectInvalid(answer, "/api/v1/subscribers", ["cursor"])
    }
  })
})

describe("filters of GET /api/v1/subscribers", () => {
  it("lists only subscribers in the given status, with the total of the filtered list", async () => {
    const own = await server.seedOrganization()
    const quitter = await createSubscriber(server, own.key)
    await createSubscriber(server, own.key)
    await call(server, "PUT", `/api/v1/subscribers/${quitter.id}`, { key: own.key, json: { status: "unsubscribed" } })
    const page = await call(server, "GET", "/api/v1/subscribers?status=unsubscribed", { key: own.key })
    expect(ids(page)).toEqual([quitter.id])
    expect(page.body.total).toBe(1)
    expect(page.headers.get("x-total-count")).toBe("1")
  })

  it("lists only subscribers carrying the given tag", async () => {
    const own = await server.seedOrganization()
    const tag = await createTag(server, own.key)
    const tagged = await createSubscriber(server, own.key, { tags: [tag.id] })
    await createSubscriber(server, own.key)
    const page = await call(server, "GET", `/api/v1/subscribers?tag=${tag.id}`, { key: own.key })
    expect(ids(page)).toEqual([tagged.id])
  })

  it("answers 400 naming tag for a tag of no one", async () => {
    const answer = await call(server, "GET", "/api/v1/subscribers?tag=0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10", { key })
    expectInvalid(answer, "/api/v1/subscribers", ["tag"])
  })

  it("never shows another organization's subscribers", async () => {
    const own = await server.seedOrganization()
    const mine = await createSubscriber(server, own.key, { email: freshEmail() })
    const page = await call(server, "GET", "/api/v1/subscribers", { key: own.key })
    expect(ids(page)).toEqual([mine.id])
  })
})

describe("bad query values of GET /api/v1/subscribers", () => {
  const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
    ["limit=0", ["limit"]],
    ["limit=101", ["limit"]],
    ["limit=-5", ["limit"]],
    ["limit=2.5", ["limit"]],
    ["limit=ten", ["limit"]],
    ["limit=99999999999999999999999", ["limit"]],
    ["limit=1&limit=2", ["limit"]],
    ["sort=name", ["sort"]],
    ["order=up", ["order"]],
    ["status=deleted", ["status"]],
    ["tag=not-a-uuid", ["tag"]],
    ["page=2", ["page"]],
    ["limit=0&sort=name&order=up&status=gone", ["limit", "sort", "order", "status"]]
  ]
  for (const [query, fields] of cases) {
    it(`answers 400 naming ${fields.join(", ")} for ?${query}`, async () => {
      const answer = await call(server, "GET", `/api/v1/subscribers?${query}`, { key })
      expectInvalid(answer, "/api/v1/subscribers", fields)
    })
  }

  it("names the allowed values of sort", async () => {
    const answer = await call(server, "GET", "/api/v1/subscribers?sort=name", { key })
    expect(answer.body.detail).toBe("sort: must be one of: created_at, updated_at, email")
  })
})
