import type { Scope } from "@roster/domain"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, type CallOptions, startHttpServer, type TestHttpServer } from "../../support/http-server.js"
import { createSubscriber, createTag, expectProblem, freshEmail } from "../helpers.js"

let server: TestHttpServer
beforeAll(async () => {
  server = await startHttpServer()
})
afterAll(() => server.close())

const nothing = "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"

describe("the X-API-Key header", () => {
  const path = "/api/v1/subscribers"

  it("answers 401 unauthorized naming the header and the cookie when both are missing", async () => {
    const answer = await call(server, "GET", path)
    expectProblem(answer, "unauthorized", path)
    expect(answer.body.detail).toBe("missing X-API-Key header or svc_session cookie")
    expect(answer.headers.get("www-authenticate")).toBe("ApiKey header=\"X-API-Key\"")
  })

  it("answers 401 for an empty header", async () => {
    const answer = await call(server, "GET", path, { headers: { "x-api-key": "   " } })
    expectProblem(answer, "unauthorized", path)
    expect(answer.body.detail).toBe("missing X-API-Key header or svc_session cookie")
  })

  it("does not take a key from Authorization: Bearer", async () => {
    const { key } = await server.seedOrganization()
    const answer = await call(server, "GET", path, { headers: { authorization: `Bearer ${key}` } })
    expectProblem(answer, "unauthorized", path)
  })

  it("answers 401 with the reason for a malformed key", async () => {
    const answer = await call(server, "GET", path, { key: "not-a-key" })
    expectProblem(answer, "unauthorized", path)
    expect(answer.body.detail).toBe("the API key is malformed")
  })

  it("answers 401 with the reason for a well-formed key that was never issued", async () => {
    const answer = await call(server, "GET", path, { key: `svc_live_${"A".repeat(40)}` })
    expectProblem(answer, "unauthorized", path)
    expect(answer.body.detail).toBe("the API key is not valid")
  })

  it("answers 401 for a revoked key", async () => {
    const organization = await server.createOrganization()
    const answer = await call(server, "GET", path, { key: await server.createRevokedApiKey(organization) })
    expectProblem(answer, "unauthorized", path)
    expect(answer.body.detail).toBe("the API key has been revoked")
  })

  it("answers 401 for a key of a suspended organization", async () => {
    const { key } = await server.seedSuspendedOrganization()
    const answer = await call(server, "GET", path, { key })
    expectProblem(answer, "unauthorized", path)
    expect(answer.body.detail).toBe("the organization is suspended")
  })

  it("checks the key before the body: no key and a bad body is 401", async () => {
    const answer = await call(server, "POST", path, { json: { nonsense: true } })
    expectProblem(answer, "unauthorized", path)
  })

  it("accepts a key the service issued, without a challenge", async () => {
    const { key } = await server.seedOrganization()
    expect(key.startsWith("svc_test_")).toBe(true)
    const answer = await call(server, "GET", path, { key })
    expect(answer.status).toBe(200)
    expect(answer.headers.get("www-authenticate")).toBeNull()
  })
})

interface Ids {
  readonly subscriber: string
  readonly tag: string
  readonly email: string
  readonly tagName: string
}

/** Placeholders, to name a route. */
const template: Ids = { subscriber: "{id}", tag: "{tag_id}", email: "{email}", tagName: "{name}" }
const nameOf = (route: Route) => `${route.method} ${decodeURIComponent(route.path(template))}`

interface Route {
  readonly method: string
  readonly path: (ids: Ids) => string
  readonly scope: Scope
  readonly options?: CallOptions
}

/** Every endpoint of /api/v1 with the scope it needs. */
const routes: ReadonlyArray<Route> = [
  { method: "POST", path: () => "/api/v1/subscribers", scope: "subscribers:write", options: { json: { email: "x@example.com" } } },
  { method: "GET", path: () => "/api/v1/subscribers", scope: "subscribers:read" },
  {
    method: "GET",
    path: (ids) => `/api/v1/subscribers/by-email/${encodeURIComponent(ids.email)}`,
    scope: "subscribers:read"
  },
  { method: "GET", path: (ids) => `/api/v1/subscribers/${ids.subscriber}`, scope: "subscribers:read" },
  {
    method: "PUT",
    path: (ids) => `/api/v1/subscribers/${ids.subscriber}`,
    scope: "subscribers:write",
    options: { json: { status: "unsubscribed" } }
  },
  { method: "DELETE", path: (ids) => `/api/v1/subscribers/${ids.subscriber}`, scope: "subscribers:delete" },
  {
    method: "POST",
    path: (ids) => `/api/v1/subscribers/${ids.subscriber}/tags`,
    scope: "subscribers:write",
    options: { json: { tag_ids: [] } }
  },
  { method: "GET", path: (ids) => `/api/v1/subscribers/${ids.subscriber}/tags`, scope: "subscribers:read" },
  { method: "DELETE", path: (ids) => `/api/v1/subscribers/${ids.subscriber}/tags/${ids.tag}`, scope: "subscribers:write" },
  { method: "POST", path: () => "/api/v1/tags", scope: "tags:write", options: { json: { name: "Scoped" } } },
  { method: "GET", path: () => "/api/v1/tags", scope: "tags:read" },
  { method: "GET", path: (ids) => `/api/v1/tags/by-name/${encodeURIComponent(ids.tagName)}`, scope: "tags:read" },
  { method: "GET", path: (ids) => `/api/v1/tags/${ids.tag}`, scope: "tags:read" },
  { method: "PUT", path: (ids) => `/api/v1/tags/${ids.tag}`, scope: "tags:write", options: { json: { name: "Renamed" } } },
  { method: "DELETE", path: (ids) => `/api/v1/tags/${ids.tag}`, scope: "tags:write" }
]

const allScopes: ReadonlyArray<Scope> = [
  "subscribers:read",
  "subscribers:write",
  "subscribers:delete",
  "tags:read",
  "tags:write",
  "templates:read",
  "templates:write",
  "emails:send",
  "emails:read",
  "webhooks:manage"
]

describe("scopes", () => {
  for (const route of routes) {
    it(`${nameOf(route)} answers 403 naming ${route.scope} without it`, async () => {
      const { key: owner, organization } = await server.seedOrganization()
      const subscriber = await createSubscriber(server, owner)
      const tag = await createTag(server, owner)
      const key = await server.createApiKey(organization, allScopes.filter((scope) => scope !== route.scope))
      const path = route.path({ subscriber: subscriber.id, tag: tag.id, email: subscriber.email, tagName: tag.name })
      const answer = await call(server, route.method, path, { ...route.options, key })
      expectProblem(answer, "forbidden", path)
      expect(answer.body.detail).toBe(`this API key lacks the scope ${route.scope}`)

      const allowed = await server.createApiKey(organization, [route.scope])
      const permitted = await call(server, route.method, path, { ...route.options, key: allowed })
      expect(permitted.status, permitted.text).toBeLessThan(300)
    })
  }
})

describe("resources of another organization", () => {
  const byIdRoutes = routes.filter((route) => /\{(id|tag_id)\}/.test(route.path(template)))

  it("covers every route that names a resource by id", () => {
    expect(byIdRoutes.map(nameOf)).toEqual([
      "GET /api/v1/subscribers/{id}",
      "PUT /api/v1/subscribers/{id}",
      "DELETE /api/v1/subscribers/{id}",
      "POST /api/v1/subscribers/{id}/tags",
      "GET /api/v1/subscribers/{id}/tags",
      "DELETE /api/v1/subscribers/{id}/tags/{tag_id}",
      "GET /api/v1/tags/{tag_id}",
      "PUT /api/v1/tags/{tag_id}",
      "DELETE /api/v1/tags/{tag_id}"
    ])
  })

  for (const route of byIdRoutes) {
    it(`${nameOf(route)} answers 403 forbidden and tells nothing of it`, async () => {
      const owner = await server.seedOrganization()
      const email = freshEmail("secret-reader")
      const tagName = `Secret Tag ${Date.now()}`
      const tag = await createTag(server, owner.key, { name: tagName, metadata: { secret: "tag-metadata" } })
      const subscriber = await createSubscriber(server, owner.key, {
        email,
        tags: [tag.id],
        metadata: { secret: "subscriber-metadata" }
      })
      const intruder = await server.seedOrganization()
      const path = route.path({ subscriber: subscriber.id, tag: tag.id, email, tagName })
      const answer = await call(server, route.method, path, { ...route.options, key: intruder.key })
      expectProblem(answer, "forbidden", path)
      expect(answer.body.detail).toBe("the resource belongs to another organization")
      expect(Object.keys(answer.body).sort()).toEqual(["detail", "instance", "status", "title", "type"])
      for (const secret of [email, tagName, "subscriber-metadata", "tag-metadata"]) {
        expect(answer.text).not.toContain(secret)
      }

      const unchanged = await call(server, "GET", `/api/v1/subscribers/${subscriber.id}`, { key: owner.key })
      expect(unchanged.body).toEqual(subscriber)
      const tagUnchanged = await call(server, "GET", `/api/v1/tags/${tag.id}`, { key: owner.key })
      expect(tagUnchanged.body).toMatchObject({ name: tagName, subscriber_count: 1 })
    })
  }

  it("answers 403 for detaching another organization's tag from one's own subscriber", async () => {
    const owner = await server.seedOrganization()
    const foreignTag = await createTag(server, owner.key)
    const own = await server.seedOrganization()
    const subscriber = await createSubscriber(server, own.key)
    const path = `/api/v1/subscribers/${subscriber.id}/tags/${foreignTag.id}`
    expectProblem(await call(server, "DELETE", path, { key: own.key }), "forbidden", path)
  })

  it("refuses another organization's tag ids as if they were no tags", async () => {
    const owner = await server.seedOrganization()
    const foreignTag = await createTag(server, owner.key)
    const own = await server.seedOrganization()
    const answer = await call(server, "POST", "/api/v1/subscribers", {
      key: own.key,
      json: { email: freshEmail(), tags: [foreignTag.id] }
    })
    expectProblem(answer, "validation_error", "/api/v1/subscribers")
    expect(answer.text).not.toContain(foreignTag.name)
  })

  it("answers 404 for an id of nothing, unlike an id of another organization's resource", async () => {
    const { key } = await server.seedOrganization()
    const path = `/api/v1/tags/${nothing}`
    expectProblem(await call(server, "GET", path, { key }), "not_found", path)
  })
})
