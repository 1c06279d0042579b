/**
 * The session cookie at work: the signed-in user's own routes under /auth, and every /api/v1
 * route acting for the organization named in X-Organization-Id, with the role's permissions.
 */
import { MembershipRepository, TokenSigner } from "@roster/application"
import { OrganizationId, UserId } from "@roster/domain"
import { Effect } from "effect"
import { SignJWT } from "jose"
import { randomBytes, randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  call,
  type SignedInUser,
  startHttpServer,
  testSigningSecret,
  type TestHttpServer,
  UnlimitedRateLimiterLive
} from "../../support/http-server.js"
import { createSubscriber, createTag, expectInvalid, expectProblem, freshEmail, uuidPattern } from "../helpers.js"

let server: TestHttpServer
beforeAll(async () => {
  // Far more sign-ins than the limits per client address allow; those are tested in auth-rate-limits.
  server = await startHttpServer({ adapters: UnlimitedRateLimiterLive })
})
afterAll(() => server.close())

/** A signed-in user who owns a new organization. */
const owner = async () => {
  const user = await server.signIn()
  const organization = await server.createOrganizationAs(user)
  return { user, organization }
}

const withCookie = (cookie: string) => ({ cookie })

/** The claims of a session token, read without checking it. */
const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8"))

describe("POST /auth/organizations", () => {
  const path = "/auth/organizations"

  it("creates an organization whose creator is its owner, and answers 200 with it", async () => {
    const user = await server.signIn()
    const slug = `weekly-${Date.now().toString(36)}`
    const answer = await call(server, "POST", path, {
      headers: user.headers(),
      json: { name: "  Weekly Digest  ", slug }
    })
    expect(answer.status, answer.text).toBe(200)
    expect(answer.body).toEqual({ id: expect.stringMatching(uuidPattern), name: "Weekly Digest", slug })
    const mine = await call(server, "GET", path, { headers: user.headers() })
    expect(mine.body).toEqual([{ ...answer.body, role: "owner" }])
  })

  it("answers 409 conflict for a slug that is taken, by anyone", async () => {
    const first = await owner()
    const other = await server.signIn()
    const answer = await call(server, "POST", path, {
      headers: other.headers(),
      json: { name: "Copycat", slug: first.organization.slug }
    })
    expectProblem(answer, "conflict", path)
    expect(answer.body.detail).toContain(first.organization.slug)
    expect((await call(server, "GET", path, { headers: other.headers() })).body).toEqual([])
  })

  const refused: ReadonlyArray<readonly [string, unknown, ReadonlyArray<string>]> = [
    ["an empty name", { name: "   ", slug: "fine-slug" }, ["name"]],
    ["a name of 101 characters", { name: "x".repeat(101), slug: "fine-slug" }, ["name"]],
    ["a slug with capitals and spaces", { name: "Fine", slug: "Not A Slug" }, ["slug"]],
    ["a missing slug", { name: "Fine" }, ["slug"]],
    ["a slug that is a number", { name: "Fine", slug: 7 }, ["slug"]],
    ["an id of its own choosing", { name: "Fine", slug: "fine-slug", id: randomUUID() }, ["id"]]
  ]
  for (const [label, json, fields] of refused) {
    it(`answers 400 validation_error for ${label}`, async () => {
      const user = await server.signIn()
      expectInvalid(await call(server, "POST", path, { headers: user.headers(), json }), path, fields)
    })
  }

  it("answers 401 without a session, and does not take an API key for one", async () => {
    const { key } = await server.seedOrganization()
    for (const options of [{}, { key }]) {
      const answer = await call(server, "POST", path, { ...options, json: { name: "Nobody's", slug: "nobodys" } })
      expectProblem(answer, "unauthorized", path)
      expect(answer.headers.get("www-authenticate")).toBe("Cookie cookie-name=\"svc_session\"")
    }
  })
})

describe("GET /auth/organizations", () => {
  it("lists the user's organizations, oldest membership first, with the role in each", async () => {
    const user = await server.signIn()
    const own = await server.createOrganizationAs(user)
    const someoneElses = await owner()
    await server.addMember(someoneElses.organization.id, user, "member")
    const answer = await call(server, "GET", "/auth/organizations", { headers: user.headers() })
    expect(answer.status).toBe(200)
    expect(answer.body).toEqual([
      { ...own, role: "owner" },
      { ...someoneElses.organization, role: "member" }
    ])
  })

  it("answers 401 unauthorized without a session cookie", async () => {
    expectProblem(await call(server, "GET", "/auth/organizations"), "unauthorized", "/auth/organizations")
  })
})

describe("a session cookie that is not good", () => {
  const targets = [
    { method: "GET", path: "/auth/organizations", headers: () => ({}) },
    { method: "GET", path: "/api/v1/subscribers", headers: (organizationId: string) => ({ "x-organization-id": organizationId }) }
  ]

  const forged: ReadonlyArray<readonly [string, (user: SignedInUser) => Promise<string>]> = [
    ["altered in its signature", async (user) => user.sessionToken.slice(0, -2) + (user.sessionToken.endsWith("AA") ? "BB" : "AA")],
    [
      "altered in its claims, naming another user",
      async (user) => {
        const [header, , signature] = user.sessionToken.split(".")
        const claims = { ...claimsOf(user.sessionToken), sub: randomUUID() }
        return `${header}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.${signature}`
      }
    ],
    [
      "signed again with another secret",
      (user) =>
        new SignJWT(claimsOf(user.sessionToken)).setProtectedHeader({ alg: "HS256", typ: "JWT" }).sign(randomBytes(32))
    ],
    [
      "signed with the right secret but HS512",
      (user) =>
        new SignJWT(claimsOf(user.sessionToken)).setProtectedHeader({ alg: "HS512", typ: "JWT" }).sign(testSigningSecret)
    ],
    ["unsigned (alg none)", async (user) => `eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.${user.sessionToken.split(".")[1]}.`],
    [
      "a preference token of the same user, signed by the service",
      (user) =>
        server.run(Effect.flatMap(TokenSigner, (tokens) =>
          tokens.sign("preference", {
            subject: user.userId,
            id: claimsOf(user.sessionToken).jti,
            organizationId: randomUUID(),
            issuedAt: new Date(),
            expiresAt: new Date(Date.now() + 3_600_000)
          })
        ))
    ],
    [
      "a session token the service signed for a session it never recorded",
      (user) =>
        server.run(Effect.flatMap(TokenSigner, (tokens) =>
          tokens.sign("session", {
            subject: user.userId,
            id: randomUUID(),
            issuedAt: new Date(),
            expiresAt: new Date(Date.now() + 3_600_000)
          })
        ))
    ],
    ["not a token at all", async () => "hello"]
  ]

  for (const [label, forge] of forged) {
    it(`answers 401 unauthorized for a cookie ${label}`, async () => {
      const { organization, user } = await owner()
      const cookie = `svc_session=${await forge(user)}`
      for (const target of targets) {
        const answer = await call(server, target.method, target.path, {
          headers: { ...withCookie(cookie), ...target.headers(organization.id) }
        })
        expectProblem(answer, "unauthorized", target.path)
      }
      // The real cookie still works.
      expect((await call(server, "GET", "/api/v1/subscribers", { headers: user.headers(organization.id) })).status).toBe(200)
    })
  }

  it("answers 401 once the session's 7 days are over", async () => {
    const { organization, user } = await owner()
    server.advanceClock("7 days")
    for (const target of targets) {
      const answer = await call(server, target.method, target.path, {
        headers: { ...withCookie(user.cookie), ...target.headers(organization.id) }
      })
      expectProblem(answer, "unauthorized", target.path)
    }
  })
})

describe("POST /auth/logout", () => {
  const path = "/auth/logout"

  it("ends the session on the server at once and clears the cookie; other sessions go on", async () => {
    const { organization, user } = await owner()
    const elsewhere = await server.signIn(user.email)
    const answer = await call(server, "POST", path, { headers: user.headers() })
    expect(answer.status, answer.text).toBe(200)
    expect(answer.body).toEqual({ message: expect.any(String) })
    const cleared = answer.headers.getSetCookie()
    expect(cleared).toHaveLength(1)
    expect(cleared[0]!.split("; ")).toEqual(expect.arrayContaining(["svc_session=", "Max-Age=0", "Path=/", "HttpOnly"]))

    // A copy of the cookie, kept by the client or a thief, is dead at once.
    expectProblem(await call(server, "GET", "/auth/organizations", { headers: user.headers() }), "unauthorized", "/auth/organizations")
    expectProblem(
      await call(server, "GET", "/api/v1/subscribers", { headers: user.headers(organization.id) }),
      "unauthorized",
      "/api/v1/subscribers"
    )
    expectProblem(await call(server, "POST", path, { headers: user.headers() }), "unauthorized", path)

    expect((await call(server, "GET", "/api/v1/tags", { headers: elsewhere.headers(organization.id) })).status).toBe(200)
  })

  it("answers 401 unauthorized without a session cookie", async () => {
    expectProblem(await call(server, "POST", path), "unauthorized", path)
  })
})

describe("/api/v1 with a session", () => {
  it("acts for the organization named in X-Organization-Id, as its owner", async () => {
    const { organization, user } = await owner()
    const created = await call(server, "POST", "/api/v1/subscribers", {
      headers: user.headers(organization.id),
      json: { email: freshEmail() }
    })
    expect(created.status, created.text).toBe(201)
    const listed = await call(server, "GET", "/api/v1/subscribers", { headers: user.headers(organization.id.toUpperCase()) })
    expect(listed.body.items.map((s: { id: string }) => s.id)).toEqual([created.body.id])
    const keys = await call(server, "GET", "/api/v1/api-keys", { headers: user.headers(organization.id) })
    expect(keys.status).toBe(200)
  })

  it("answers 400 validation_error naming X-Organization-Id when the header is missing or blank", async () => {
    const { user } = await owner()
    for (const headers of [user.headers(), { ...user.headers(), "x-organization-id": "  " }]) {
      const answer = await call(server, "GET", "/api/v1/tags", { headers })
      expectInvalid(answer, "/api/v1/tags", ["X-Organization-Id"])
    }
  })

  it("answers 403 forbidden for an organization the user is not a member of, showing none of its data", async () => {
    const { user } = await owner()
    const other = await server.seedOrganization()
    const secret = await createSubscriber(server, other.key, { email: freshEmail("secret"), metadata: { note: "hidden" } })
    const tag = await createTag(server, other.key)
    for (const path of ["/api/v1/subscribers", `/api/v1/subscribers/${secret.id}`, `/api/v1/tags/${tag.id}`, "/api/v1/tags"]) {
      const answer = await call(server, "GET", path, { headers: user.headers(other.organization.id) })
      expectProblem(answer, "forbidden", path)
      expect(answer.text).not.toContain(secret.email)
      expect(answer.text).not.toContain("hidden")
      expect(answer.text).not.toContain(tag.name)
    }
  })

  const nonsense = ["not-a-uuid", "00000000-0000-0000-0000-000000000000", randomUUID(), "../../etc"]
  for (const organizationId of nonsense) {
    it(`answers 403 forbidden for X-Organization-Id ${organizationId}`, async () => {
      const { user } = await owner()
      expectProblem(
        await call(server, "GET", "/api/v1/subscribers", { headers: user.headers(organizationId) }),
        "forbidden",
        "/api/v1/subscribers"
      )
    })
  }

  it("answers 401 for the session of a member of a suspended organization", async () => {
    const user = await server.signIn()
    const { organization } = await server.seedSuspendedOrganization()
    await server.addMember(organization.id, user, "owner")
    expectProblem(
      await call(server, "GET", "/api/v1/tags", { headers: user.headers(organization.id) }),
      "unauthorized",
      "/api/v1/tags"
    )
  })

  describe("as a member", () => {
    const member = async () => {
      const team = await owner()
      const user = await server.signIn()
      await server.addMember(team.organization.id, user, "member")
      return { organizationId: team.organization.id as string, user }
    }

    it("works on subscribers and tags", async () => {
      const { organizationId, user } = await member()
      const headers = user.headers(organizationId)
      const tag = await call(server, "POST", "/api/v1/tags", { headers, json: { name: "Members' picks" } })
      expect(tag.status, tag.text).toBe(201)
      const subscriber = await call(server, "POST", "/api/v1/subscribers", {
        headers,
        json: { email: freshEmail(), tags: [tag.body.id] }
      })
      expect(subscriber.status, subscriber.text).toBe(201)
      expect((await call(server, "GET", "/api/v1/subscribers", { headers })).status).toBe(200)
      expect((await call(server, "GET", "/api/v1/tags", { headers })).status).toBe(200)
      expect((await call(server, "PUT", `/api/v1/tags/${tag.body.id}`, { headers, json: { name: "Renamed" } })).status).toBe(200)
      expect((await call(server, "DELETE", `/api/v1/subscribers/${subscriber.body.id}`, { headers })).status).toBe(204)
    })

    it("gets 403 forbidden on API keys, which are for owners", async () => {
      const { organizationId, user } = await member()
      const headers = user.headers(organizationId)
      for (const [method, json] of [["GET", undefined], ["POST", { name: "Mine", scopes: ["tags:read"] }]] as const) {
        const answer = await call(server, method, "/api/v1/api-keys", { headers, json })
        expectProblem(answer, "forbidden", "/api/v1/api-keys")
        expect(answer.body.detail).toBe("the member role does not allow this; it needs the scope *, which only owners hold")
      }
      expect((await call(server, "GET", "/api/v1/api-keys/scopes", { headers })).status).toBe(200)
    })

    it("loses access at once when removed from the organization", async () => {
      const { organizationId, user } = await member()
      expect((await call(server, "GET", "/api/v1/tags", { headers: user.headers(organizationId) })).status).toBe(200)
      await server.run(Effect.flatMap(MembershipRepository, (memberships) =>
        memberships.remove(OrganizationId.make(organizationId), UserId.make(user.userId))
      ))
      expectProblem(await call(server, "GET", "/api/v1/tags", { headers: user.headers(organizationId) }), "forbidden", "/api/v1/tags")
      expect((await call(server, "GET", "/auth/organizations", { headers: user.headers() })).body).toEqual([])
    })

    it("gains the owner's permissions at once when made an owner", async () => {
      const { organizationId, user } = await member()
      const path = "/api/v1/api-keys"
      expectProblem(await call(server, "GET", path, { headers: user.headers(organizationId) }), "forbidden", path)
      await server.addMember(organizationId, user, "owner")
      expect((await call(server, "GET", path, { headers: user.headers(organizationId) })).status).toBe(200)
    })
  })
})

describe("an API key and a session cookie together", () => {
  it("act for the key's organization, whatever X-Organization-Id says", async () => {
    const { organization, user } = await owner()
    const keyed = await server.seedOrganization()
    const created = await call(server, "POST", "/api/v1/tags", {
      key: keyed.key,
      headers: user.headers(organization.id),
      json: { name: "Whose is it" }
    })
    expect(created.status, created.text).toBe(201)
    const ofKey = await call(server, "GET", "/api/v1/tags", { key: keyed.key })
    expect(ofKey.body.items.map((t: { id: string }) => t.id)).toEqual([created.body.id])
    const ofSession = await call(server, "GET", "/api/v1/tags", { headers: user.headers(organization.id) })
    expect(ofSession.body.items).toEqual([])
  })

  it("act with the key's scopes, not the owner's", async () => {
    const { organization, user } = await owner()
    const keyed = await server.seedOrganization({ scopes: ["tags:read"] })
    const answer = await call(server, "GET", "/api/v1/api-keys", { key: keyed.key, headers: user.headers(organization.id) })
    expectProblem(answer, "forbidden", "/api/v1/api-keys")
    expect(answer.body.detail).toBe("this API key lacks the scope *")
  })

  it("answer 401 with the key's reason when the key is not valid, the good session notwithstanding", async () => {
    const { organization, user } = await owner()
    for (const [key, reason] of [["not-a-key", "the API key is malformed"], [`svc_live_${"A".repeat(40)}`, "the API key is not valid"]]) {
      const answer = await call(server, "GET", "/api/v1/tags", { key, headers: user.headers(organization.id) })
      expectProblem(answer, "unauthorized", "/api/v1/tags")
      expect(answer.body.detail).toBe(reason)
    }
  })

  it("answer with the session's reason when only a session cookie is sent", async () => {
    const { organization, user } = await owner()
    await call(server, "POST", "/auth/logout", { headers: user.headers() })
    const answer = await call(server, "GET", "/api/v1/tags", { headers: user.headers(organization.id) })
    expectProblem(answer, "unauthorized", "/api/v1/tags")
    expect(answer.body.detail).toBe("the session has ended; sign in again")
  })
})

describe("requests from another site", () => {
  const unsafe: ReadonlyArray<readonly [string, Record<string, string>]> = [
    ["Sec-Fetch-Site: cross-site", { "sec-fetch-site": "cross-site" }],
    ["a foreign Origin", { origin: "https://evil.example" }],
    ["Origin null", { origin: "null" }],
    ["a foreign Origin on the same host name but another port", { origin: "http://127.0.0.1:1" }]
  ]

  for (const [label, headers] of unsafe) {
    it(`refuses a session request that changes something with ${label}: 403, and changes nothing`, async () => {
      const { organization, user } = await owner()
      const answer = await call(server, "POST", "/api/v1/tags", {
        headers: { ...user.headers(organization.id), ...headers },
        json: { name: "Planted" }
      })
      expectProblem(answer, "forbidden", "/api/v1/tags")
      const tags = await call(server, "GET", "/api/v1/tags", { headers: user.headers(organization.id) })
      expect(tags.body.items).toEqual([])

      const logout = await call(server, "POST", "/auth/logout", { headers: { ...user.headers(), ...headers } })
      expectProblem(logout, "forbidden", "/auth/logout")
      expect((await call(server, "GET", "/auth/organizations", { headers: user.headers() })).status).toBe(200)
    })
  }

  it("lets reads through from anywhere, and changes from the service's own origins", async () => {
    const { organization, user } = await owner()
    const read = await call(server, "GET", "/api/v1/tags", {
      headers: { ...user.headers(organization.id), "sec-fetch-site": "cross-site", origin: "https://evil.example" }
    })
    expect(read.status).toBe(200)
    const own: ReadonlyArray<Record<string, string>> = [
      { "sec-fetch-site": "same-origin", origin: "http://localhost:3000" },
      { origin: server.baseUrl },
      { "sec-fetch-site": "none" },
      {}
    ]
    for (const [i, headers] of own.entries()) {
      const answer = await call(server, "POST", "/api/v1/tags", {
        headers: { ...user.headers(organization.id), ...headers },
        json: { name: `Own ${i}` }
      })
      expect(answer.status, JSON.stringify(headers)).toBe(201)
    }
  })

  it("does not apply to API keys, which no browser sends on its own", async () => {
    const { key } = await server.seedOrganization()
    const answer = await call(server, "POST", "/api/v1/tags", {
      key,
      headers: { "sec-fetch-site": "cross-site", origin: "https://integrations.example" },
      json: { name: "From a server" }
    })
    expect(answer.status).toBe(201)
  })
})
