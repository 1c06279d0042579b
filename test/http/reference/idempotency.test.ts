/**
 * `Idempotency-Key` on the POST routes of `/api/v1`, over the real server with the in-process
 * store: a repeat of a request with its key is answered the first answer again instead of running
 * twice, the key with another request is refused, and keys belong to an organization and a
 * credential.
 */
import { Ids } from "@roster/application"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeUuidV7 } from "../../../adapters/node/index.js"
import { type Answer, call, type CallOptions, startHttpServer, type TestHttpServer } from "../../support/http-server.js"
import { createSubscriber, createTag, expectInvalid, expectProblem, freshEmail, freshTagName } from "../helpers.js"

let server: TestHttpServer
beforeAll(async () => {
  server = await startHttpServer()
})
afterAll(() => server.close())

let keyCounter = 0
/** An idempotency key no other request of this run uses. */
const freshKey = () => `key-${Date.now().toString(36)}-${++keyCounter}`

const post = (path: string, apiKey: string, idempotencyKey: string | undefined, options: CallOptions = {}) =>
  call(server, "POST", path, {
    ...options,
    key: apiKey,
    headers: { ...options.headers, ...(idempotencyKey === undefined ? {} : { "idempotency-key": idempotencyKey }) }
  })

/** How many subscribers the organization of `key` has. */
const subscriberCount = async (key: string): Promise<number> => {
  const answer = await call(server, "GET", "/api/v1/subscribers", { key })
  expect(answer.status).toBe(200)
  return answer.body.total
}

/** The second answer is the first, given again. */
const expectReplayOf = (replay: Answer, first: Answer) => {
  expect(replay.status).toBe(first.status)
  expect(replay.text).toBe(first.text)
  expect(replay.headers.get("content-type")).toBe(first.headers.get("content-type"))
  expect(replay.headers.get("idempotent-replayed")).toBe("true")
}

const expectNotReplayed = (answer: Answer) => expect(answer.headers.get("idempotent-replayed")).toBeNull()

describe("a repeat of a request with its Idempotency-Key", () => {
  it("creates one subscriber, and answers the first answer again with Idempotent-Replayed: true", async () => {
    const { key } = await server.seedOrganization()
    const idempotencyKey = freshKey()
    const json = { email: freshEmail(), metadata: { source: "import" } }

    const first = await post("/api/v1/subscribers", key, idempotencyKey, { json })
    expect(first.status).toBe(201)
    expect(first.headers.get("content-type")).toMatch(/^application\/json/)
    expect(first.body).toMatchObject({ email: json.email, status: "active", metadata: { source: "import" } })
    expectNotReplayed(first)
    const replay = await post("/api/v1/subscribers", key, idempotencyKey, { json })
    expectReplayOf(replay, first)
    expect(replay.body.id).toBe(first.body.id)
    expect(await subscriberCount(key)).toBe(1)
  })

  it("gets the delivery's own request id and rate-limit headers, not those of the first answer", async () => {
    const { key } = await server.seedOrganization()
    const idempotencyKey = freshKey()
    const json = { name: freshTagName() }
    const first = await post("/api/v1/tags", key, idempotencyKey, { json })
    const replay = await post("/api/v1/tags", key, idempotencyKey, { json })
    expect(first.status).toBe(201)
    expectReplayOf(replay, first)
    expect(replay.headers.get("x-request-id")).not.toBe(first.headers.get("x-request-id"))
    expect(Number(replay.headers.get("x-ratelimit-remaining"))).toBe(Number(first.headers.get("x-ratelimit-remaining")) - 1)
  })

  it("is replayed on every POST route, such as attaching tags", async () => {
    const { key } = await server.seedOrganization()
    const subscriber = await createSubscriber(server, key)
    const tag = await createTag(server, key)
    const idempotencyKey = freshKey()
    const path = `/api/v1/subscribers/${subscriber.id}/tags`
    const first = await post(path, key, idempotencyKey, { json: { tag_ids: [tag.id] } })
    expect(first.status).toBe(200)
    const replay = await post(path, key, idempotencyKey, { json: { tag_ids: [tag.id] } })
    expectReplayOf(replay, first)
  })

  it("keeps a 409 conflict and replays it, even once the request would succeed", async () => {
    const { key } = await server.seedOrganization()
    const existing = await createSubscriber(server, key)
    const idempotencyKey = freshKey()
    const json = { email: existing.email }

    const first = await post("/api/v1/subscribers", key, idempotencyKey, { json })
    expectProblem(first, "conflict", "/api/v1/subscribers")
    expectNotReplayed(first)
    expect((await call(server, "DELETE", `/api/v1/subscribers/${existing.id}`, { key })).status).toBe(204)

    const replay = await post("/api/v1/subscribers", key, idempotencyKey, { json })
    expectReplayOf(replay, first)
    expect(await subscriberCount(key)).toBe(0)
  })
})

describe("the same Idempotency-Key with another request", () => {
  it("answers 422 idempotency_key_reused for another body, and does nothing", async () => {
    const { key } = await server.seedOrganization()
    const idempotencyKey = freshKey()
    expect((await post("/api/v1/subscribers", key, idempotencyKey, { json: { email: freshEmail() } })).status).toBe(201)

    const reused = await post("/api/v1/subscribers", key, idempotencyKey, { json: { email: freshEmail() } })
    expectProblem(reused, "idempotency_key_reused", "/api/v1/subscribers")
    expectNotReplayed(reused)
    expect(await subscriberCount(key)).toBe(1)
  })

  it("answers 422 for the same body sent to another route", async () => {
    const { key } = await server.seedOrganization()
    const idempotencyKey = freshKey()
    const name = freshTagName()
    expect((await post("/api/v1/tags", key, idempotencyKey, { json: { name } })).status).toBe(201)

    const body = JSON.stringify({ name })
    const elsewhere = await post("/api/v1/api-keys", key, idempotencyKey, {
      body,
      headers: { "content-type": "application/json" }
    })
    expectProblem(elsewhere, "idempotency_key_reused", "/api/v1/api-keys")
  })

  it("answers 422 for the same route with another path parameter", async () => {
    const { key } = await server.seedOrganization()
    const [ada, bob] = [await createSubscriber(server, key), await createSubscriber(server, key)]
    const tag = await createTag(server, key)
    const idempotencyKey = freshKey()
    const json = { tag_ids: [tag.id] }
    expect((await post(`/api/v1/subscribers/${ada.id}/tags`, key, idempotencyKey, { json })).status).toBe(200)
    const other = await post(`/api/v1/subscribers/${bob.id}/tags`, key, idempotencyKey, { json })
    expectProblem(other, "idempotency_key_reused", `/api/v1/subscribers/${bob.id}/tags`)
  })
})

describe("concurrent requests with one Idempotency-Key", () => {
  /** Every id takes a while to make, so that a request is still running when its repeats arrive. */
  const makeId = makeUuidV7()
  const SlowIdsLive = Layer.succeed(Ids, Ids.of({
    next: Effect.delay(Effect.sync(makeId), "300 millis"),
    take: (count) => Effect.delay(Effect.sync(() => Array.from({ length: count }, makeId)), "300 millis")
  }))

  let slow: TestHttpServer
  beforeAll(async () => {
    slow = await startHttpServer({ adapters: SlowIdsLive })
  })
  afterAll(() => slow.close())

  it("create exactly one subscriber: one runs, repeats while it runs get 409 idempotency_request_in_progress", async () => {
    const { key } = await slow.seedOrganization()
    const idempotencyKey = freshKey()
    const json = { email: freshEmail() }
    const send = () => call(slow, "POST", "/api/v1/subscribers", { key, json, headers: { "idempotency-key": idempotencyKey } })
    const answers = await Promise.all(Array.from({ length: 10 }, send))

    const ran = answers.filter((a) => a.status === 201 && a.headers.get("idempotent-replayed") === null)
    expect(ran, answers.map((a) => a.status).join(" ")).toHaveLength(1)
    const refused = answers.filter((a) => a.status === 409)
    expect(refused.length).toBeGreaterThanOrEqual(1)
    for (const answer of answers) {
      if (answer === ran[0]) continue
      if (answer.status === 409) expectProblem(answer, "idempotency_request_in_progress", "/api/v1/subscribers")
      else expectReplayOf(answer, ran[0]!)
    }

    expectReplayOf(await send(), ran[0]!)
    const list = await call(slow, "GET", "/api/v1/subscribers", { key })
    expect(list.body.total).toBe(1)
  })
})

describe("answers that are not kept", () => {
  it("a 400 validation error of the body: the corrected body with the same key then runs", async () => {
    const { key } = await server.seedOrganization()
    const idempotencyKey = freshKey()
    const invalid = await post("/api/v1/subscribers", key, idempotencyKey, { json: { email: "not an address" } })
    expectInvalid(invalid, "/api/v1/subscribers", ["email"])

    const corrected = await post("/api/v1/subscribers", key, idempotencyKey, { json: { email: freshEmail() } })
    expect(corrected.status).toBe(201)
    expectNotReplayed(corrected)
    expect(await subscriberCount(key)).toBe(1)
  })

  it("a 400 the use case finds (a tag of no one): the same request runs again once the tag exists", async () => {
    const { key } = await server.seedOrganization()
    const subscriber = await createSubscriber(server, key)
    const idempotencyKey = freshKey()
    const unknownTag = "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"
    const path = `/api/v1/subscribers/${subscriber.id}/tags`
    expectInvalid(await post(path, key, idempotencyKey, { json: { tag_ids: [unknownTag] } }), path, ["tag_ids[0]"])

    const tag = await createTag(server, key)
    const corrected = await post(path, key, idempotencyKey, { json: { tag_ids: [tag.id] } })
    expect(corrected.status).toBe(200)
    expectNotReplayed(corrected)
    expect(corrected.body.tags.map((t: { id: string }) => t.id)).toEqual([tag.id])
  })

  it("a 401: the request with a valid key then runs", async () => {
    const { key } = await server.seedOrganization()
    const idempotencyKey = freshKey()
    const json = { email: freshEmail() }
    expectProblem(await post("/api/v1/subscribers", "not-a-key", idempotencyKey, { json }), "unauthorized", "/api/v1/subscribers")
    const created = await post("/api/v1/subscribers", key, idempotencyKey, { json })
    expect(created.status).toBe(201)
    expectNotReplayed(created)
  })
})

describe("the Idempotency-Key header", () => {
  it("answers 400 validation_error naming Idempotency-Key when it is not 1 to 255 printable characters, and does nothing", async () => {
    const { key } = await server.seedOrganization()
    for (const bad of ["has a space", "x".repeat(256), ""]) {
      const answer = await post("/api/v1/subscribers", key, bad, { json: { email: freshEmail() } })
      expectInvalid(answer, "/api/v1/subscribers", ["Idempotency-Key"])
    }
    expect(await subscriberCount(key)).toBe(0)
  })

  it("is optional: without it every POST runs, a repeated one too", async () => {
    const { key } = await server.seedOrganization()
    const json = { email: freshEmail() }
    const first = await post("/api/v1/subscribers", key, undefined, { json })
    const second = await post("/api/v1/subscribers", key, undefined, { json })
    expect(first.status).toBe(201)
    expectProblem(second, "conflict", "/api/v1/subscribers")
    expectNotReplayed(second)
  })

  it("is ignored on other methods", async () => {
    const { key } = await server.seedOrganization()
    const subscriber = await createSubscriber(server, key)
    const idempotencyKey = freshKey()
    const path = `/api/v1/subscribers/${subscriber.id}`
    const unsubscribed = await call(server, "PUT", path, {
      key,
      headers: { "idempotency-key": idempotencyKey },
      json: { status: "unsubscribed" }
    })
    const active = await call(server, "PUT", path, { key, headers: { "idempotency-key": idempotencyKey }, json: { status: "active" } })
    expect([unsubscribed.body.status, active.body.status]).toEqual(["unsubscribed", "active"])
    expectNotReplayed(active)
  })
})

describe("whose keys they are", () => {
  it("keys belong to a credential: the same key and body from two API keys of one organization run twice", async () => {
    const { key, organization } = await server.seedOrganization()
    const otherKey = await server.createApiKey(organization)
    const idempotencyKey = freshKey()
    const json = { email: freshEmail() }

    expect((await post("/api/v1/subscribers", key, idempotencyKey, { json })).status).toBe(201)
    const second = await post("/api/v1/subscribers", otherKey, idempotencyKey, { json })
    expectProblem(second, "conflict", "/api/v1/subscribers")
    expectNotReplayed(second)
  })

  it("keys belong to an organization: the same key and body in two organizations make a subscriber in each", async () => {
    const [one, two] = [await server.seedOrganization(), await server.seedOrganization()]
    const idempotencyKey = freshKey()
    const json = { email: freshEmail() }
    const answers = [
      await post("/api/v1/subscribers", one.key, idempotencyKey, { json }),
      await post("/api/v1/subscribers", two.key, idempotencyKey, { json })
    ]
    expect(answers.map((a) => a.status)).toEqual([201, 201])
    expect(answers[0]!.body.id).not.toBe(answers[1]!.body.id)
    expectNotReplayed(answers[1]!)
    expect([await subscriberCount(one.key), await subscriberCount(two.key)]).toEqual([1, 1])
  })

  it("a session's keys are its user's: replayed to the session, run again for an API key of the organization", async () => {
    const { key, organization } = await server.seedOrganization()
    const user = await server.signIn()
    await server.addMember(organization.id, user, "owner")
    const idempotencyKey = freshKey()
    const json = { name: freshTagName() }
    const asUser = { headers: { ...user.headers(organization.id), "idempotency-key": idempotencyKey }, json }

    const first = await call(server, "POST", "/api/v1/tags", asUser)
    expect(first.status).toBe(201)
    expectReplayOf(await call(server, "POST", "/api/v1/tags", asUser), first)
    const byKey = await post("/api/v1/tags", key, idempotencyKey, { json })
    expectProblem(byKey, "conflict", "/api/v1/tags")
  })
})
