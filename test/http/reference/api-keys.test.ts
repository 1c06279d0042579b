/**
 * /api/v1/api-keys: an owner's area. Keys are shown in full once, when made or rotated; a key
 * stops working at once when rotated or deleted.
 */
import { scopeDescriptions, type Scope } from "@roster/domain"
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../../support/http-server.js"
import { expectInvalid, expectProblem, isoInstantPattern, uuidPattern } from "../helpers.js"

let server: TestHttpServer
beforeAll(async () => {
  // Sign-ins well beyond the limits per client address; those are tested in auth-rate-limits.
  server = await startHttpServer({ adapters: UnlimitedRateLimiterLive })
})
afterAll(() => server.close())

const path = "/api/v1/api-keys"
const nothing = "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"

const everyScopeButAll: ReadonlyArray<Scope> = [
  "subscribers:read",
  "subscribers:write",
  "subscribers:delete",
  "tags:read",
  "tags:write",
  "templates:read",
  "templates:write",
  "emails:send",
  "emails:read",
  "campaigns:read",
  "campaigns:write",
  "triggers:read",
  "triggers:write",
  "sequences:read",
  "sequences:write",
  "forms:read",
  "forms:write",
  "segments:read",
  "segments:write",
  "webhooks:manage"
]

const createKey = async (owner: string, json: Record<string, unknown> = {}) => {
  const answer = await call(server, "POST", path, { key: owner, json: { name: "Importer", scopes: ["tags:read"], ...json } })
  expect(answer.status, answer.text).toBe(201)
  return answer.body
}

describe("GET /api/v1/api-keys/scopes", () => {
  const scopesPath = `${path}/scopes`

  it("lists every scope with its meaning, to any authenticated caller", async () => {
    const { key, organization } = await server.seedOrganization({ scopes: ["tags:read"] })
    const expected = {
      items: Object.entries(scopeDescriptions).map(([scope, description]) => ({ scope, description }))
    }
    const answer = await call(server, "GET", scopesPath, { key })
    expect(answer.status).toBe(200)
    expect(answer.body).toEqual(expected)
    expect(answer.body.items.map((i: { scope: string }) => i.scope)).toEqual([
      "subscribers:read",
      "subscribers:write",
      "subscribers:delete",
      "tags:read",
      "tags:write",
      "templates:read",
      "templates:write",
      "emails:send",
      "emails:read",
      "campaigns:read",
      "campaigns:write",
      "triggers:read",
      "triggers:write",
      "sequences:read",
      "sequences:write",
      "forms:read",
      "forms:write",
      "segments:read",
      "segments:write",
      "webhooks:manage",
      "*"
    ])
    const member = await server.signIn()
    await server.addMember(organization.id, member, "member")
    expect((await call(server, "GET", scopesPath, { headers: member.headers(organization.id) })).body).toEqual(expected)
  })

  it("answers 401 without credentials", async () => {
    expectProblem(await call(server, "GET", scopesPath), "unauthorized", scopesPath)
  })
})

describe("POST /api/v1/api-keys", () => {
  it("answers 201 with the full key, once, and the key works with exactly its scopes", async () => {
    const { key: owner } = await server.seedOrganization()
    const answer = await call(server, "POST", path, {
      key: owner,
      json: { name: "  Nightly import  ", scopes: ["subscribers:read", "tags:read"] }
    })
    expect(answer.status, answer.text).toBe(201)
    const key: string = answer.body.key
    expect(key).toMatch(/^svc_live_[0-9A-Za-z]{40}$/)
    expect(answer.body).toEqual({
      id: expect.stringMatching(uuidPattern),
      name: "Nightly import",
      key,
      prefix: key.slice(0, "svc_live_".length + 4),
      last_four: key.slice(-4),
      scopes: ["subscribers:read", "tags:read"],
      environment: "live",
      created_at: expect.stringMatching(isoInstantPattern),
      last_used_at: null,
      revoked_at: null
    })
    expect((await call(server, "GET", "/api/v1/subscribers", { key })).status).toBe(200)
    expectProblem(
      await call(server, "POST", "/api/v1/tags", { key, json: { name: "Not mine to make" } }),
      "forbidden",
      "/api/v1/tags"
    )
    const shown = await call(server, "GET", `${path}/${answer.body.id}`, { key: owner })
    expect(shown.text).not.toContain(key)
  })

  it("makes a svc_test_ key for environment test", async () => {
    const { key: owner } = await server.seedOrganization()
    const created = await createKey(owner, { environment: "test" })
    expect(created.key).toMatch(/^svc_test_/)
    expect(created).toMatchObject({ environment: "test", prefix: created.key.slice(0, 13) })
  })

  it("makes a key for the organization a session names, when its owner asks", async () => {
    const user = await server.signIn()
    const organization = await server.createOrganizationAs(user)
    const answer = await call(server, "POST", path, {
      headers: user.headers(organization.id),
      json: { name: "Made with a session", scopes: ["*"] }
    })
    expect(answer.status, answer.text).toBe(201)
    const listed = await call(server, "GET", path, { key: answer.body.key })
    expect(listed.body.items.map((k: { id: string }) => k.id)).toEqual([answer.body.id])
  })

  const refused: ReadonlyArray<readonly [string, unknown, ReadonlyArray<string>]> = [
    ["no name", { scopes: ["tags:read"] }, ["name"]],
    ["a blank name", { name: "  ", scopes: ["tags:read"] }, ["name"]],
    ["no scopes", { name: "k" }, ["scopes"]],
    ["an empty list of scopes", { name: "k", scopes: [] }, ["scopes"]],
    ["a scope that does not exist", { name: "k", scopes: ["tags:read", "everything"] }, ["scopes[1]"]],
    ["scopes as a string", { name: "k", scopes: "*" }, ["scopes"]],
    ["an environment that does not exist", { name: "k", scopes: ["*"], environment: "production" }, ["environment"]],
    ["a field it may not set", { name: "k", scopes: ["*"], organization_id: randomUUID() }, ["organization_id"]],
    ["a key of its own choosing", { name: "k", scopes: ["*"], key: `svc_live_${"A".repeat(40)}` }, ["key"]]
  ]
  for (const [label, json, fields] of refused) {
    it(`answers 400 validation_error for ${label}`, async () => {
      const { key: owner } = await server.seedOrganization()
      expectInvalid(await call(server, "POST", path, { key: owner, json }), path, fields)
      expect((await call(server, "GET", path, { key: owner })).body.total).toBe(1)
    })
  }
})

describe("GET /api/v1/api-keys", () => {
  it("lists the organization's keys, oldest first, without the keys themselves", async () => {
    const { key: owner } = await server.seedOrganization()
    const first = await createKey(owner, { name: "First" })
    const second = await createKey(owner, { name: "Second", scopes: ["*"], environment: "test" })
    await createKey((await server.seedOrganization()).key, { name: "Someone else's" })
    const answer = await call(server, "GET", path, { key: owner })
    expect(answer.status).toBe(200)
    expect(answer.body.total).toBe(3)
    expect(answer.body.items.map((k: { name: string }) => k.name)).toEqual(["test key", "First", "Second"])
    const { key: _secondKey, ...secondListed } = second
    expect(answer.body.items[2]).toEqual(secondListed)
    for (const item of answer.body.items) expect(Object.keys(item)).not.toContain("key")
    for (const full of [owner, first.key, second.key]) expect(answer.text).not.toContain(full)
    expect(answer.body.items[0]).toMatchObject({ scopes: ["*"], last_used_at: expect.stringMatching(isoInstantPattern) })
  })
})

describe("GET /api/v1/api-keys/{id}", () => {
  it("answers the key's record", async () => {
    const { key: owner } = await server.seedOrganization()
    const { key: _key, ...record } = await createKey(owner)
    const answer = await call(server, "GET", `${path}/${record.id}`, { key: owner })
    expect(answer.status).toBe(200)
    expect(answer.body).toEqual(record)
  })
})

describe("PATCH /api/v1/api-keys/{id}", () => {
  it("renames a key and replaces its scopes, which take effect at once; the key stays the same", async () => {
    const { key: owner } = await server.seedOrganization()
    const created = await createKey(owner, { scopes: ["tags:read"] })
    const target = `${path}/${created.id}`
    expectProblem(await call(server, "GET", "/api/v1/subscribers", { key: created.key }), "forbidden", "/api/v1/subscribers")
    const answer = await call(server, "PATCH", target, {
      key: owner,
      json: { name: "Renamed", scopes: ["subscribers:read"] }
    })
    expect(answer.status, answer.text).toBe(200)
    const { key: _key, ...before } = created
    expect(answer.body).toEqual({ ...before, name: "Renamed", scopes: ["subscribers:read"], last_used_at: expect.anything() })
    expect((await call(server, "GET", "/api/v1/subscribers", { key: created.key })).status).toBe(200)
    expectProblem(await call(server, "GET", "/api/v1/tags", { key: created.key }), "forbidden", "/api/v1/tags")
  })

  it("leaves out what is not sent", async () => {
    const { key: owner } = await server.seedOrganization()
    const created = await createKey(owner, { name: "Keep", scopes: ["tags:write"] })
    const answer = await call(server, "PATCH", `${path}/${created.id}`, { key: owner, json: {} })
    expect(answer.status).toBe(200)
    expect(answer.body).toMatchObject({ name: "Keep", scopes: ["tags:write"] })
  })

  const refused: ReadonlyArray<readonly [string, unknown, ReadonlyArray<string>]> = [
    ["an empty list of scopes", { scopes: [] }, ["scopes"]],
    ["a blank name", { name: "" }, ["name"]],
    ["an unknown scope", { scopes: ["admin"] }, ["scopes[0]"]],
    ["a field it may not set", { environment: "test" }, ["environment"]]
  ]
  for (const [label, json, fields] of refused) {
    it(`answers 400 validation_error for ${label}`, async () => {
      const { key: owner } = await server.seedOrganization()
      const created = await createKey(owner)
      const target = `${path}/${created.id}`
      expectInvalid(await call(server, "PATCH", target, { key: owner, json }), target, fields)
    })
  }
})

describe("POST /api/v1/api-keys/{id}/rotate", () => {
  it("answers a new key for the same record; the old key stops working at once", async () => {
    const { key: owner } = await server.seedOrganization()
    const created = await createKey(owner, { scopes: ["tags:read"], environment: "test" })
    expect((await call(server, "GET", "/api/v1/tags", { key: created.key })).status).toBe(200)
    const target = `${path}/${created.id}/rotate`
    const answer = await call(server, "POST", target, { key: owner })
    expect(answer.status, answer.text).toBe(200)
    const rotated: string = answer.body.key
    expect(rotated).toMatch(/^svc_test_[0-9A-Za-z]{40}$/)
    expect(rotated).not.toBe(created.key)
    expect(answer.body).toEqual({
      ...created,
      key: rotated,
      prefix: rotated.slice(0, 13),
      last_four: rotated.slice(-4),
      last_used_at: null
    })
    const old = await call(server, "GET", "/api/v1/tags", { key: created.key })
    expectProblem(old, "unauthorized", "/api/v1/tags")
    expect(old.body.detail).toBe("the API key is not valid")
    expect((await call(server, "GET", "/api/v1/tags", { key: rotated })).status).toBe(200)
  })
})

describe("DELETE /api/v1/api-keys/{id}", () => {
  it("answers 204; the key stops working at once and is gone", async () => {
    const { key: owner } = await server.seedOrganization()
    const created = await createKey(owner)
    const target = `${path}/${created.id}`
    const answer = await call(server, "DELETE", target, { key: owner })
    expect(answer.status).toBe(204)
    expect(answer.text).toBe("")
    expectProblem(await call(server, "GET", "/api/v1/tags", { key: created.key }), "unauthorized", "/api/v1/tags")
    expectProblem(await call(server, "GET", target, { key: owner }), "not_found", target)
    expectProblem(await call(server, "DELETE", target, { key: owner }), "not_found", target)
  })
})

/** Every endpoint that works on one key, with what it needs to send. */
const byId: ReadonlyArray<readonly [string, (id: string) => string, unknown]> = [
  ["GET", (id) => `${path}/${id}`, undefined],
  ["PATCH", (id) => `${path}/${id}`, { name: "Taken over" }],
  ["POST", (id) => `${path}/${id}/rotate`, undefined],
  ["DELETE", (id) => `${path}/${id}`, undefined]
]

describe("keys of another organization and keys that do not exist", () => {
  for (const [method, target] of byId) {
    it(`${method} ${target("{id}")} answers 403 for another organization's key, telling nothing and changing nothing`, async () => {
      const victim = await server.seedOrganization()
      const created = await createKey(victim.key, { name: "Victim's secret name" })
      const intruder = await server.seedOrganization()
      const answer = await call(server, method, target(created.id), {
        key: intruder.key,
        json: method === "PATCH" ? { name: "Taken over" } : undefined
      })
      expectProblem(answer, "forbidden", target(created.id))
      expect(answer.text).not.toContain("Victim's secret name")
      expect(answer.text).not.toContain(created.last_four)
      expect((await call(server, "GET", "/api/v1/tags", { key: created.key })).status).toBe(200)
      const { key: _key, ...unchanged } = created
      expect((await call(server, "GET", `${path}/${created.id}`, { key: victim.key })).body).toEqual({
        ...unchanged,
        last_used_at: expect.anything()
      })
    })

    it(`${method} ${target("{id}")} answers 404 for an id of nothing and 400 for an id that is not one`, async () => {
      const { key } = await server.seedOrganization()
      const json = method === "PATCH" ? { name: "x" } : undefined
      expectProblem(await call(server, method, target(nothing), { key, json }), "not_found", target(nothing))
      expectInvalid(await call(server, method, target("not-an-id"), { key, json }), target("not-an-id"), ["api_key_id"])
    })
  }
})

describe("who may manage keys", () => {
  const everyEndpoint = (id: string): ReadonlyArray<readonly [string, string, unknown]> => [
    ["POST", path, { name: "k", scopes: ["tags:read"] }],
    ["GET", path, undefined],
    ...byId.map(([method, target, json]) => [method, target(id), json] as const)
  ]

  it("refuses a key without * on every endpoint but the scope list: 403 naming *", async () => {
    const { key: owner, organization } = await server.seedOrganization()
    const created = await createKey(owner)
    const narrow = await server.createApiKey(organization, everyScopeButAll)
    for (const [method, target, json] of everyEndpoint(created.id)) {
      const answer = await call(server, method, target, { key: narrow, json })
      expectProblem(answer, "forbidden", target)
      expect(answer.body.detail).toBe("this API key lacks the scope *")
    }
    // The owner's key, the one made above and the narrow one: nothing added, nothing removed.
    expect((await call(server, "GET", path, { key: owner })).body.total).toBe(3)
  })

  it("refuses a member's session on every endpoint but the scope list: 403", async () => {
    const { key: owner, organization } = await server.seedOrganization()
    const created = await createKey(owner)
    const member = await server.signIn()
    await server.addMember(organization.id, member, "member")
    for (const [method, target, json] of everyEndpoint(created.id)) {
      expectProblem(await call(server, method, target, { headers: member.headers(organization.id), json }), "forbidden", target)
    }
    expect((await call(server, "GET", "/api/v1/tags", { key: created.key })).status).toBe(200)
  })

  it("lets an owner's session do all of it", async () => {
    const user = await server.signIn()
    const organization = await server.createOrganizationAs(user)
    const headers = user.headers(organization.id)
    const created = await call(server, "POST", path, { headers, json: { name: "k", scopes: ["tags:read"] } })
    expect(created.status).toBe(201)
    const id = created.body.id
    expect((await call(server, "GET", path, { headers })).body.total).toBe(1)
    expect((await call(server, "GET", `${path}/${id}`, { headers })).status).toBe(200)
    expect((await call(server, "PATCH", `${path}/${id}`, { headers, json: { scopes: ["*"] } })).status).toBe(200)
    expect((await call(server, "POST", `${path}/${id}/rotate`, { headers })).status).toBe(200)
    expect((await call(server, "DELETE", `${path}/${id}`, { headers })).status).toBe(204)
  })
})
