/**
 * No input a client can send makes the service fail: random and hostile bodies, paths and
 * queries always answer below 500, and every error is a complete problem. The generator is
 * seeded, so a failure repeats with the same inputs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  type Answer,
  call,
  type CallOptions,
  startHttpServer,
  type TestHttpServer,
  UnlimitedRateLimiterLive
} from "../../support/http-server.js"
import { createSubscriber, createTag } from "../helpers.js"

let server: TestHttpServer
let key: string
let subscriberId: string
let tagId: string
let apiKeyId: string
let session: Record<string, string>
/** A key of a platform-admin organization, and an organization of its own for the admin routes to change. */
let adminKey: string
let adminTargetId: string

beforeAll(async () => {
  // Thousands of sign-in requests from one client address: the limits would answer most of them.
  server = await startHttpServer({ adapters: UnlimitedRateLimiterLive })
  ;({ key } = await server.seedOrganization())
  const tag = await createTag(server, key)
  tagId = tag.id
  subscriberId = (await createSubscriber(server, key, { tags: [tag.id] })).id
  const issued = await call(server, "POST", "/api/v1/api-keys", { key, json: { name: "Fuzzed", scopes: ["tags:read"] } })
  apiKeyId = issued.body.id
  session = (await server.signIn()).headers()
  ;({ key: adminKey } = await server.seedOrganization({ isPlatformAdmin: true }))
  adminTargetId = (await server.createOrganization()).id
})
afterAll(() => server.close())

/** mulberry32: a small seeded generator. */
const generator = (seed: number) => {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n: number) => Math.floor(next() * n)
  const pick = <A>(items: ReadonlyArray<A>): A => items[int(items.length)]!
  return { next, int, pick }
}
type Random = ReturnType<typeof generator>

const awkwardStrings = [
  "",
  " ",
  "a@b.co",
  "ADA@EXAMPLE.COM",
  "a@@b.co",
  "\u0000",
  "\u202e\u0041@b.co",
  "ünïcödé@exämple.com",
  "😀@😀.com",
  "x".repeat(300),
  "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10",
  "00000000-0000-0000-0000-000000000000",
  "active",
  "complained",
  "bounced",
  "__proto__",
  "constructor",
  "toString",
  "<script>alert(1)</script>",
  "'; DROP TABLE subscribers; --",
  "../../etc/passwd",
  "%00",
  "\\",
  "\"",
  "null",
  "NaN"
]

const keyPool = [
  "email",
  "tags",
  "metadata",
  "status",
  "name",
  "slug",
  "description",
  "tag_ids",
  "id",
  "organization_id",
  "subscriber_count",
  "created_at",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "",
  " ",
  "😀"
]

const numbers = [0, -0, 1, -1, 1.5, 1e308, -1e308, 5e-324, 2 ** 53 + 2, 101, 100, 50, 999999999999]

const randomValue = (r: Random, depth: number): unknown => {
  const kind = r.int(depth > 4 ? 5 : 8)
  switch (kind) {
    case 0:
      return null
    case 1:
      return r.next() < 0.5
    case 2:
      return r.pick(numbers)
    case 3:
      return r.pick(awkwardStrings)
    case 4:
      return String.fromCodePoint(...Array.from({ length: r.int(20) }, () => r.int(0x2ffff)).filter((c) => c < 0xd800 || c > 0xdfff))
    case 5:
      return Array.from({ length: r.int(6) }, () => randomValue(r, depth + 1))
    default: {
      const object: Record<string, unknown> = {}
      for (let i = r.int(6); i > 0; i--) object[r.pick(keyPool)] = randomValue(r, depth + 1)
      return object
    }
  }
}

/** JSON texts that JSON.stringify cannot make. */
const rawTexts = [
  "{\"__proto__\": {\"status\": \"bounced\"}, \"email\": \"p@example.com\"}",
  "{\"email\": \"p@example.com\", \"metadata\": {\"__proto__\": []}}",
  "{\"email\": \"p@example.com\", \"metadata\": {\"n\": 1e999999}}",
  "{\"email\": \"p@example.com\", \"metadata\": {\"n\": -1e999999}}",
  "{\"email\": \"p@example.com\", \"metadata\": {\"big\": 123456789012345678901234567890}}",
  "{\"email\": \"\\ud800@example.com\"}",
  "{\"name\": \"\\udfff\", \"metadata\": {\"\\ud83d\": \"\\ude00\"}}",
  "{\"email\": \"a@example.com\", \"email\": \"b@example.com\"}",
  "{\"tag_ids\": {\"length\": 3}}",
  "{\"tag_ids\": \"0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10\"}",
  "{\"status\": [\"active\"]}",
  "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
  "{\"metadata\": " + "{\"a\": ".repeat(31) + "1" + "}".repeat(31) + "}",
  "{\"email\": \"p@example.com\", \"metadata\": {\"d\": " + "[".repeat(100_000) + "]".repeat(100_000) + "}}",
  "{\"email\": " + "{\"a\": ".repeat(50_000) + "1" + "}".repeat(50_000) + "}",
  "{",
  "}",
  "{\"email\"",
  "nul",
  "tru",
  "0",
  "-",
  "\"\\u00\"",
  "{\"a\":1}garbage",
  "\ufeff{\"email\": \"bom@example.com\"}"
]

const randomBody = (r: Random, shape: Record<string, unknown>): string | Uint8Array => {
  switch (r.int(6)) {
    case 0:
      return JSON.stringify(randomValue(r, 0)) ?? "null"
    case 1: {
      const mutated: Record<string, unknown> = { ...shape }
      const field = r.pick([...Object.keys(shape), ...keyPool])
      mutated[field] = randomValue(r, 1)
      return JSON.stringify(mutated)
    }
    case 2:
      return r.pick(rawTexts)
    case 3:
      return Uint8Array.from({ length: 1 + r.int(64) }, () => r.int(256))
    case 4: {
      const text = JSON.stringify({ ...shape, metadata: randomValue(r, 1) })
      return text.slice(0, r.int(text.length + 1))
    }
    default:
      return JSON.stringify({ ...shape, metadata: { deep: randomValue(r, 0), list: [randomValue(r, 0)] } })
  }
}

/**
 * Below 500, and a complete problem whenever it is an error (the path as fetch sent it); a 405
 * never lists the method it refused.
 */
const expectHandled = (answer: Answer, path: string, sent: unknown, method?: string) => {
  const context = `${path} <- ${typeof sent === "string" ? sent.slice(0, 300) : String(sent)}\n-> ${answer.text.slice(0, 300)}`
  expect(answer.status, context).toBeLessThan(500)
  expect(answer.headers.get("x-request-id"), context).not.toBeNull()
  if (answer.status >= 400) {
    expect(answer.headers.get("content-type"), context).toMatch(/^application\/problem\+json/)
    expect(answer.body, context).toMatchObject({
      type: expect.any(String),
      title: expect.any(String),
      status: answer.status,
      detail: expect.any(String),
      instance: new URL(path, server.baseUrl).pathname
    })
  }
  if (answer.status === 405 && method !== undefined) {
    expect(answer.headers.get("allow")?.split(", "), context).not.toContain(method)
  }
}

describe("random and hostile bodies", () => {
  const targets = (): ReadonlyArray<{
    method: string
    path: string
    shape: Record<string, unknown>
    credential: CallOptions
  }> => [
    {
      method: "POST",
      path: "/api/v1/subscribers",
      shape: { email: "fuzz@example.com", tags: [tagId], metadata: {} },
      credential: { key }
    },
    {
      method: "PUT",
      path: `/api/v1/subscribers/${subscriberId}`,
      shape: { status: "active", metadata: {} },
      credential: { key }
    },
    { method: "POST", path: `/api/v1/subscribers/${subscriberId}/tags`, shape: { tag_ids: [tagId] }, credential: { key } },
    {
      method: "POST",
      path: "/api/v1/tags",
      shape: { name: "Fuzz", slug: "fuzz", description: null, metadata: {} },
      credential: { key }
    },
    {
      method: "PUT",
      path: `/api/v1/tags/${tagId}`,
      shape: { name: "Fuzz", description: "d", metadata: {} },
      credential: { key }
    },
    {
      method: "POST",
      path: "/api/v1/api-keys",
      shape: { name: "Fuzz", scopes: ["tags:read"], environment: "test" },
      credential: { key }
    },
    {
      method: "PATCH",
      path: `/api/v1/api-keys/${apiKeyId}`,
      shape: { name: "Fuzz", scopes: ["tags:read"] },
      credential: { key }
    },
    { method: "POST", path: "/auth/magic-link", shape: { email: "fuzz@example.com", locale: "de" }, credential: {} },
    {
      method: "POST",
      path: "/auth/organizations",
      shape: { name: "Fuzz", slug: "fuzz" },
      credential: { headers: session }
    },
    {
      method: "PATCH",
      path: `/api/v1/admin/organizations/${adminTargetId}`,
      shape: { name: "Fuzz", tier: "pro", is_platform_admin: false, suspended: false },
      credential: { key: adminKey }
    },
    {
      method: "POST",
      path: `/api/v1/admin/organizations/${adminTargetId}/members`,
      shape: { user_id: "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10", role: "member" },
      credential: { key: adminKey }
    }
  ]
  const names = [
    "POST /subscribers",
    "PUT /subscribers/{id}",
    "POST /subscribers/{id}/tags",
    "POST /tags",
    "PUT /tags/{id}",
    "POST /api-keys",
    "PATCH /api-keys/{id}",
    "POST /auth/magic-link",
    "POST /auth/organizations",
    "PATCH /admin/organizations/{id}",
    "POST /admin/organizations/{id}/members"
  ]

  names.forEach((name, index) => {
    it(`${name} answers every one of 300 bodies below 500`, async () => {
      const target = targets()[index]!
      const r = generator(1000 + index)
      for (let i = 0; i < 300; i++) {
        const body = randomBody(r, target.shape)
        const answer = await call(server, target.method, target.path, {
          ...target.credential,
          body,
          headers: { ...target.credential.headers, "content-type": "application/json" }
        })
        expectHandled(answer, target.path, body)
      }
    })
  })

  it("answers every raw text to every body endpoint below 500", async () => {
    for (const target of targets()) {
      for (const body of rawTexts) {
        const answer = await call(server, target.method, target.path, {
          ...target.credential,
          body,
          headers: { ...target.credential.headers, "content-type": "application/json" }
        })
        expectHandled(answer, target.path, body)
      }
    }
  })
})

/** Percent-encoded bytes, valid UTF-8 or not. */
const randomSegment = (r: Random): string => {
  switch (r.int(4)) {
    case 0:
      return Array.from({ length: 1 + r.int(12) }, () => `%${r.int(256).toString(16).padStart(2, "0")}`).join("")
    case 1:
      return encodeURIComponent(r.pick(awkwardStrings)) || "x"
    case 2:
      return encodeURIComponent(String(randomValue(r, 5))) || "x"
    default:
      return r.pick(["%", "%E0%A4%A", "%FF", "%ED%A0%80", "..", ".", "%2F", "%2e%2e", "a%00b", ";a", "x".repeat(2000)])
  }
}

describe("random paths and queries", () => {
  it("answers 800 hostile paths below 500", async () => {
    const r = generator(7)
    const templates = [
      (s: string) => `/api/v1/subscribers/${s}`,
      (s: string) => `/api/v1/subscribers/by-email/${s}`,
      (s: string) => `/api/v1/subscribers/${s}/tags`,
      (s: string) => `/api/v1/subscribers/${subscriberId}/tags/${s}`,
      (s: string) => `/api/v1/tags/${s}`,
      (s: string) => `/api/v1/tags/by-name/${s}`,
      (s: string) => `/api/v1/api-keys/${s}`,
      (s: string) => `/api/v1/api-keys/${s}/rotate`,
      (s: string) => `/api/v1/webhooks/${s}`,
      (s: string) => `/api/v1/webhooks/${s}/deliveries`,
      (s: string) => `/api/v1/webhooks/${s}/deliveries/${s}/retry`,
      (s: string) => `/api/v1/webhooks/${s}/stats`,
      (s: string) => `/auth/${s}`,
      (s: string) => `/errors/${s}`,
      (s: string) => `/${s}`,
      (s: string) => `/api/v1/${s}/${s}`
    ]
    for (let i = 0; i < 800; i++) {
      const path = r.pick(templates)(randomSegment(r))
      const method = r.pick(["GET", "GET", "PUT", "DELETE", "POST", "PATCH", "OPTIONS"])
      const answer = await call(server, method, path, { key, ...(method === "PUT" || method === "POST" ? { json: {} } : {}) })
      expectHandled(answer, path, method, method)
    }
  })

  it("answers 400 hostile admin paths and list queries of a platform admin below 500", async () => {
    const r = generator(17)
    const templates = [
      (s: string) => `/api/v1/admin/organizations/${s}`,
      (s: string) => `/api/v1/admin/organizations/${s}/members`,
      (s: string) => `/api/v1/admin/organizations/${adminTargetId}/members/${s}`,
      (s: string) => `/api/v1/admin/users/${s}`,
      (s: string) => `/api/v1/admin/${s}`
    ]
    for (let i = 0; i < 300; i++) {
      const path = r.pick(templates)(randomSegment(r))
      const method = r.pick(["GET", "GET", "DELETE", "POST", "PATCH"])
      const answer = await call(server, method, path, { key: adminKey, ...(method === "POST" ? { json: {} } : {}) })
      expectHandled(answer, path, method, method)
    }
    const names = ["limit", "cursor", "sort", "", "limit[]", "__proto__"]
    const values = ["0", "1", "100", "101", "-1", "1e2", "", "asc", "%FF", "%", "eyJ9", adminTargetId]
    for (let i = 0; i < 100; i++) {
      const query = Array.from({ length: 1 + r.int(3) }, () => `${r.pick(names)}=${r.pick(values)}`).join("&")
      const path = `${r.pick(["/api/v1/admin/organizations", "/api/v1/admin/users"])}?${query}`
      expectHandled(await call(server, "GET", path, { key: adminKey }), path, query)
    }
  })

  it("answers 400 random list queries below 500", async () => {
    const r = generator(11)
    const names = ["limit", "cursor", "sort", "order", "status", "tag", "page", "", "limit[]", "__proto__"]
    const values = ["0", "1", "100", "101", "-1", "1e2", "0x10", "", "asc", "desc", "email", "name", "active", tagId, "%FF", "%", "eyJ9"]
    for (let i = 0; i < 400; i++) {
      const query = Array.from({ length: 1 + r.int(4) }, () => `${r.pick(names)}=${r.pick(values)}`).join("&")
      const path = `${r.pick(["/api/v1/subscribers", "/api/v1/tags"])}?${query}`
      expectHandled(await call(server, "GET", path, { key }), path, query)
    }
  })

  it("answers 300 random sign-in tokens and page queries below 500, the page always 200", async () => {
    const r = generator(13)
    for (let i = 0; i < 300; i++) {
      const query = Array.from(
        { length: r.int(4) },
        () => `${r.pick(["token", "locale", "token[]", ""])}=${randomSegment(r)}`
      ).join("&")
      const verify = `/auth/verify?${query}`
      expectHandled(await call(server, "GET", verify, { headers: session }), verify, query)
      const page = await call(server, "GET", `/auth/sign-in?${query}`, {
        headers: { "accept-language": String(randomValue(r, 5)).slice(0, 200).replace(/[^\x20-\x7e]/g, "") }
      })
      expect(page.status, query).toBe(200)
    }
  })
})
