import { Outbox, Subscribers, TokenSigner } from "@roster/application"
import { OrganizationId } from "@roster/domain"
import { Effect } from "effect"
import { SignJWT } from "jose"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startHttpServer, testSigningSecret, type TestHttpServer } from "../../support/http-server.js"
import {
  createSubscriber,
  createTag,
  expectProblem as expectProblemAt,
  freshTagName,
  isoInstantPattern
} from "../helpers.js"

type Answer = Parameters<typeof expectProblemAt>[0]
type Code = Parameters<typeof expectProblemAt>[1]

/** Problems of this suite's server, whose error pages are under its PUBLIC_BASE_URL. */
const expectProblem = (answer: Answer, code: Code, instance: string) =>
  expectProblemAt(answer, code, instance, "https://news.example.com/errors")

const expectInvalid = (answer: Answer, instance: string, fields: ReadonlyArray<string>) => {
  expectProblem(answer, "validation_error", instance)
  expect(answer.body.errors.map((e: { field: string }) => e.field)).toEqual(expect.arrayContaining([...fields]))
}

let server: TestHttpServer
beforeAll(async () => {
  server = await startHttpServer({ config: { PUBLIC_BASE_URL: "https://news.example.com/" } })
})
afterAll(() => server.close())

/** A subscriber of a fresh organization, a preference token for them, and the organization's key. */
const subscriberWithLink = async (tags: ReadonlyArray<Record<string, unknown>> = []) => {
  const { key, organization } = await server.seedOrganization()
  const created = []
  for (const tag of tags) created.push(await createTag(server, key, tag))
  const subscriber = await createSubscriber(server, key)
  const answer = await call(server, "POST", `/api/v1/subscribers/${subscriber.id}/token`, { key })
  expect(answer.status, answer.text).toBe(200)
  return { key, organization, subscriber, tags: created, token: answer.body.token as string }
}

const center = (token: string) => `/preference-center?token=${encodeURIComponent(token)}`
const tagPath = (tagId: string, token: string) => `/preference-center/tags/${tagId}?token=${encodeURIComponent(token)}`

/** The kinds of the events the organization recorded, oldest first. */
const recorded = (organizationId: string) =>
  server.run(Effect.flatMap(Outbox, (outbox) => outbox.recorded(OrganizationId.make(organizationId)))).then((events) =>
    events.map((event) => ({ type: event.type, data: event.data }))
  )

describe("POST /api/v1/subscribers/{id}/token", () => {
  it("answers a token, its preference center URL under PUBLIC_BASE_URL, and when it expires, 30 days on", async () => {
    const { key } = await server.seedOrganization()
    const subscriber = await createSubscriber(server, key)
    const before = Date.now()
    const answer = await call(server, "POST", `/api/v1/subscribers/${subscriber.id}/token`, { key })
    expect(answer.status).toBe(200)
    expect(answer.body).toEqual({
      token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      url: `https://news.example.com/preference-center?token=${answer.body.token}`,
      expires_at: expect.stringMatching(isoInstantPattern)
    })
    const after = Date.now()
    // The token's end in whole seconds, as its `exp` says it.
    const expires = Date.parse(answer.body.expires_at)
    expect(expires % 1000).toBe(0)
    expect(expires).toBeGreaterThan(before + 30 * 86_400_000 - 1000)
    expect(expires).toBeLessThanOrEqual(after + 30 * 86_400_000)
  })

  it("needs subscribers:write, and answers 404 for a subscriber the organization does not have", async () => {
    const { key } = await server.seedOrganization()
    const subscriber = await createSubscriber(server, key)
    const { key: reader } = await server.seedOrganization({ scopes: ["subscribers:read"] })
    const path = `/api/v1/subscribers/${subscriber.id}/token`
    expectProblem(await call(server, "POST", path, { key: reader }), "forbidden", path)
    const { key: readerOfOwn } = await server.seedOrganization({ scopes: ["subscribers:read"] })
    expect((await call(server, "POST", path, { key: readerOfOwn })).status).toBe(403)
    const missing = "/api/v1/subscribers/0192f3a4-0000-7000-8000-000000000000/token"
    expectProblem(await call(server, "POST", missing, { key }), "not_found", missing)
  })
})

describe("GET /preference-center", () => {
  it("shows the organization, the address and status, and every tag with whether the subscriber carries it", async () => {
    const { key, organization, subscriber, token } = await subscriberWithLink([
      { name: "Weekly", description: "Every Monday" },
      { name: "Announcements" }
    ])
    await call(server, "POST", `/api/v1/subscribers/${subscriber.id}/tags`, {
      key,
      json: { tag_ids: [(await call(server, "GET", "/api/v1/tags/by-name/Weekly", { key })).body.id] }
    })
    const answer = await call(server, "GET", center(token))
    expect(answer.status, answer.text).toBe(200)
    expect(answer.headers.get("content-type")).toMatch(/^application\/json/)
    const weekly = {
      id: expect.any(String),
      name: "Weekly",
      slug: "weekly",
      description: "Every Monday",
      subscribed: true,
      subscribed_at: expect.stringMatching(isoInstantPattern)
    }
    const announcements = { id: expect.any(String), name: "Announcements", slug: "announcements", description: null, subscribed: false }
    expect(answer.body).toEqual({
      organization_name: organization.name,
      email: subscriber.email,
      status: "active",
      subscribed_tags: [weekly],
      available_tags: [announcements, weekly]
    })
    expect(answer.body.available_tags[0]).not.toHaveProperty("subscribed_at")
  })

  it("answers 401 invalid_token for a missing, broken, tampered, expired or wrong-kind token", async () => {
    const { token } = await subscriberWithLink()
    expectProblem(await call(server, "GET", "/preference-center"), "invalid_token", "/preference-center")
    for (const bad of ["not-a-token", `${token.slice(0, -4)}AAAA`, `${token}x`]) {
      expectProblem(await call(server, "GET", center(bad)), "invalid_token", "/preference-center")
    }
    // A session token of the same service is not a preference token.
    const user = await server.signIn()
    expectProblem(await call(server, "GET", center(user.sessionToken)), "invalid_token", "/preference-center")
    // A token signed with the service's own secret but without a version is refused.
    const unversioned = await server.run(Effect.flatMap(TokenSigner, (signer) =>
      signer.sign("preference", {
        subject: "0192f3a4-0000-7000-8000-000000000000",
        id: "x",
        organizationId: "0192f3a4-0000-7000-8000-000000000001",
        issuedAt: new Date(),
        expiresAt: new Date(Date.now() + 60_000)
      })))
    expectProblem(await call(server, "GET", center(unversioned)), "invalid_token", "/preference-center")
    // An expired one.
    const expired = await new SignJWT({ org: "0192f3a4-0000-7000-8000-000000000001", ver: 0 })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setIssuer("roster")
      .setAudience("roster:preference")
      .setSubject("0192f3a4-0000-7000-8000-000000000000")
      .setJti("expired")
      .setIssuedAt(new Date(Date.now() - 31 * 86_400_000))
      .setExpirationTime(new Date(Date.now() - 86_400_000))
      .sign(testSigningSecret)
    const answer = await call(server, "GET", center(expired))
    expectProblem(answer, "invalid_token", "/preference-center")
    expect(answer.body.detail).toContain("expired")
  })

  it("a revoked link is refused at once, and a new one works; a deleted subscriber's link is refused", async () => {
    const { key, subscriber, token } = await subscriberWithLink()
    const path = `/api/v1/subscribers/${subscriber.id}/token`
    expect((await call(server, "DELETE", path, { key })).status).toBe(204)
    expectProblem(await call(server, "GET", center(token)), "invalid_token", "/preference-center")
    const fresh = (await call(server, "POST", path, { key })).body.token as string
    expect((await call(server, "GET", center(fresh))).status).toBe(200)
    expect((await call(server, "DELETE", `/api/v1/subscribers/${subscriber.id}`, { key })).status).toBe(204)
    expectProblem(await call(server, "GET", center(fresh)), "invalid_token", "/preference-center")
    const missing = "/api/v1/subscribers/0192f3a4-0000-7000-8000-000000000000/token"
    expectProblem(await call(server, "DELETE", missing, { key }), "not_found", missing)
  })
})

describe("PUT and DELETE /preference-center/tags/{tag_id}", () => {
  it("subscribes and unsubscribes, answering the view, and records the events the API records, once", async () => {
    const name = freshTagName()
    const { organization, subscriber, tags, token } = await subscriberWithLink([{ name }])
    const tag = tags[0]!
    const subscribed = await call(server, "PUT", tagPath(tag.id, token))
    expect(subscribed.status, subscribed.text).toBe(200)
    expect(subscribed.body.subscribed_tags.map((t: { name: string }) => t.name)).toEqual([name])
    expect((await call(server, "PUT", tagPath(tag.id, token))).status).toBe(200)
    const unsubscribed = await call(server, "DELETE", tagPath(tag.id, token))
    expect(unsubscribed.status).toBe(200)
    expect(unsubscribed.body.subscribed_tags).toEqual([])
    expect(unsubscribed.body.available_tags[0].subscribed).toBe(false)
    expect((await call(server, "DELETE", tagPath(tag.id, token))).status).toBe(200)

    const reference = { subscriber: { id: subscriber.id, email: subscriber.email }, tag: { id: tag.id, name, slug: tag.slug } }
    const events = (await recorded(organization.id)).filter((event) => event.type.startsWith("tag."))
    expect(events).toEqual([{ type: "tag.subscribed", data: reference }, { type: "tag.unsubscribed", data: reference }])
  })

  it("subscribing makes an unsubscribed subscriber active again, as their own action", async () => {
    const { key, organization, subscriber, tags, token } = await subscriberWithLink([{ name: freshTagName() }])
    await call(server, "PUT", `/api/v1/subscribers/${subscriber.id}`, { key, json: { status: "unsubscribed" } })
    const answer = await call(server, "PUT", tagPath(tags[0]!.id, token))
    expect(answer.body.status).toBe("active")
    expect((await call(server, "GET", `/api/v1/subscribers/${subscriber.id}`, { key })).body.status).toBe("active")
    const updates = (await recorded(organization.id)).filter((event) => event.type === "subscriber.updated")
    expect(updates.at(-1)?.data).toMatchObject({ changed: ["status"], subscriber: { status: "active" } })
  })

  it("answers 404 for another organization's tag and for a tag that does not exist, changing nothing", async () => {
    const { token } = await subscriberWithLink()
    const { key: otherKey } = await server.seedOrganization()
    const foreign = await createTag(server, otherKey, { name: freshTagName() })
    const path = `/preference-center/tags/${foreign.id}`
    expectProblem(await call(server, "PUT", tagPath(foreign.id, token)), "not_found", path)
    expectProblem(await call(server, "DELETE", tagPath(foreign.id, token)), "not_found", path)
    const none = "0192f3a4-0000-7000-8000-000000000000"
    expectProblem(await call(server, "PUT", tagPath(none, token)), "not_found", `/preference-center/tags/${none}`)
    expect((await call(server, "GET", center(token))).body.subscribed_tags).toEqual([])
    expect((await call(server, "GET", `/api/v1/tags/${foreign.id}`, { key: otherKey })).body.subscriber_count).toBe(0)
  })

  it("answers 400 for a tag id that is not one, and 401 without a token", async () => {
    const { token } = await subscriberWithLink()
    expectInvalid(await call(server, "PUT", tagPath("not-an-id", token)), "/preference-center/tags/not-an-id", ["tag_id"])
    const none = "0192f3a4-0000-7000-8000-000000000000"
    expectProblem(await call(server, "PUT", `/preference-center/tags/${none}`), "invalid_token", `/preference-center/tags/${none}`)
  })
})

describe("GET /preference-center/data-export", () => {
  it("answers everything stored about the subscriber as a JSON file: profile, tags and the events about them", async () => {
    const name = freshTagName()
    const { key, organization, subscriber, tags, token } = await subscriberWithLink([{ name, description: "Mondays" }])
    await call(server, "PUT", tagPath(tags[0]!.id, token))
    await call(server, "PUT", `/api/v1/subscribers/${subscriber.id}`, { key, json: { metadata: { plan: "gold" } } })
    const answer = await call(server, "GET", `/preference-center/data-export?token=${encodeURIComponent(token)}`)
    expect(answer.status, answer.text).toBe(200)
    expect(answer.headers.get("content-disposition")).toMatch(/^attachment; filename="roster-data-\d{4}-\d{2}-\d{2}\.json"$/)
    expect(answer.body).toEqual({
      exported_at: expect.stringMatching(isoInstantPattern),
      organization: { name: organization.name },
      subscriber: {
        id: subscriber.id,
        email: subscriber.email,
        status: "active",
        first_name: null,
        last_name: null,
        metadata: { plan: "gold" },
        created_at: subscriber.created_at,
        updated_at: expect.stringMatching(isoInstantPattern)
      },
      tags: [{ name, slug: tags[0]!.slug, description: "Mondays", subscribed_at: expect.stringMatching(isoInstantPattern) }],
      events: [
        expect.objectContaining({ type: "subscriber.created", data: expect.objectContaining({ subscriber: expect.objectContaining({ id: subscriber.id }) }) }),
        expect.objectContaining({ type: "tag.subscribed" }),
        expect.objectContaining({ type: "subscriber.updated" })
      ],
      notes: [],
      emails: [],
      consents: []
    })
    // Another subscriber's events are not in it.
    const other = await createSubscriber(server, key)
    const again = await call(server, "GET", `/preference-center/data-export?token=${encodeURIComponent(token)}`)
    expect(JSON.stringify(again.body)).not.toContain(other.id)
  })

  it("answers 401 invalid_token without a good token", async () => {
    expectProblem(await call(server, "GET", "/preference-center/data-export?token=nope"), "invalid_token", "/preference-center/data-export")
  })
})

describe("DELETE /preference-center/account", () => {
  it("answers 202; the links stop working at once; asking again answers 202 and changes nothing", async () => {
    const { token } = await subscriberWithLink()
    const path = `/preference-center/account?token=${encodeURIComponent(token)}`
    const first = await call(server, "DELETE", path)
    expect(first.status, first.text).toBe(202)
    expect(first.body.message).toContain("erased")
    expect((await call(server, "DELETE", path)).status).toBe(202)
    const view = await call(server, "GET", center(token))
    expectProblem(view, "invalid_token", "/preference-center")
    expect(view.body.detail).toContain("erased")
  })

  it("the erasure deletes the subscriber and their tag links, keeps only their id in past events, and emits subscriber.deleted", async () => {
    const { key, organization, subscriber, tags, token } = await subscriberWithLink([{ name: freshTagName() }])
    await call(server, "PUT", tagPath(tags[0]!.id, token))
    expect((await call(server, "DELETE", `/preference-center/account?token=${encodeURIComponent(token)}`)).status).toBe(202)
    // Until the worker runs, the subscriber is still there.
    expect((await call(server, "GET", `/api/v1/subscribers/${subscriber.id}`, { key })).status).toBe(200)
    const erased = await server.run(Effect.flatMap(Subscribers, (subscribers) => subscribers.eraseRequested(100)))
    expect(erased).toBeGreaterThanOrEqual(1)
    expect((await call(server, "GET", `/api/v1/subscribers/${subscriber.id}`, { key })).status).toBe(404)
    expect((await call(server, "GET", `/api/v1/tags/${tags[0]!.id}`, { key })).body.subscriber_count).toBe(0)
    const events = await recorded(organization.id)
    const deleted = events.filter((event) => event.type === "subscriber.deleted")
    expect(deleted).toHaveLength(1)
    expect(deleted[0]!.data).toMatchObject({ subscriber: { id: subscriber.id, email: subscriber.email } })
    const before = events.filter((event) => event.type !== "subscriber.deleted")
    expect(before.map((event) => event.type)).toEqual(["subscriber.created", "tag.subscribed"])
    for (const event of before) {
      expect((event.data as { subscriber: unknown }).subscriber).toEqual({ id: subscriber.id })
      expect(JSON.stringify(event.data)).not.toContain(subscriber.email)
    }
    // Nothing is left to do.
    expect(await server.run(Effect.flatMap(Subscribers, (subscribers) => subscribers.eraseRequested(100)))).toBe(0)
  })
})
