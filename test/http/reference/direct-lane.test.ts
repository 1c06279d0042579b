import { SqlError } from "@effect/sql"
import { Layer, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import { once } from "node:events"
import { connect } from "node:net"
import { makeRedisClient, RedisRateLimiterLive } from "../../../adapters/redis/index.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  type Answer,
  call,
  type CallOptions,
  capturingLogger,
  failingSubscriberRepository,
  startHttpServer,
  type TestHttpServer
} from "../../support/http-server.js"
import { redis, whenRunning } from "../../support/servers.js"
import { expectProblem, freshEmail } from "../helpers.js"

/**
 * The direct lane answers an API key's reads and creates of single subscribers beside the HttpApi.
 * Each request here goes to two servers alike, one with the lane and one without, and both must
 * answer the same (ids, times and request ids aside).
 */

let lane: TestHttpServer
let api: TestHttpServer
const laneLines: Array<Record<string, unknown>> = []


beforeAll(async () => {
  ;[lane, api] = await Promise.all([
    startHttpServer({ logger: capturingLogger(laneLines) }),
    startHttpServer({ directLane: false })
  ])
})
afterAll(() => Promise.all([lane.close(), api.close()]))

/** Organizations without a rate limit, whose keys' requests the lane takes. */
const unlimited = { tier: "enterprise", customRateLimit: 0 } as const

const uuids = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi
const instants = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g

/**
 * An answer as the two servers can agree on it: ids and times masked, the headers that belong to
 * it (not the date, the request id or the window's end).
 */
const comparable = (answer: Answer) => {
  const headers: Record<string, string> = {}
  answer.headers.forEach((value, name) => {
    if (name !== "date" && name !== "x-request-id" && name !== "x-ratelimit-reset") headers[name] = value
  })
  // Compressed, the ids and times make the length vary.
  if (headers["content-encoding"] !== undefined) delete headers["content-length"]
  return {
    status: answer.status,
    headers,
    text: answer.text.replace(uuids, "<uuid>").replace(instants, "<instant>")
  }
}

interface Side {
  readonly server: TestHttpServer
  readonly key: string
  /** A subscriber of the organization, made through the API. */
  readonly subscriberId: string
}

const sideOf = async (
  server: TestHttpServer,
  options: { readonly tier: "enterprise" | "free"; readonly customRateLimit?: number },
  email = freshEmail("side")
) => {
  const { key } = await server.seedOrganization(options)
  const created = await call(server, "POST", "/api/v1/subscribers", { key, json: { email } })
  expect(created.status, created.text).toBe(201)
  return { server, key, subscriberId: created.body.id as string } satisfies Side
}

/** The same request, made by `request` on both servers, answered the same; the lane's answer. */
const sameOnBoth = async (
  request: (side: Side) => { readonly method: string; readonly path: string; readonly options?: CallOptions },
  organization: { readonly tier: "enterprise" | "free"; readonly customRateLimit?: number } = unlimited
): Promise<Answer> => {
  const email = freshEmail("side")
  const [onLane, onApi] = await Promise.all([sideOf(lane, organization, email), sideOf(api, organization, email)])
  const ask = async (side: Side) => {
    const { method, options, path } = request(side)
    return call(side.server, method, path, { key: side.key, ...options })
  }
  const [laneAnswer, apiAnswer] = await Promise.all([ask(onLane), ask(onApi)])
  expect(comparable(laneAnswer)).toEqual(comparable(apiAnswer))
  expect(laneAnswer.headers.get("x-request-id")).toMatch(/\S/)
  return laneAnswer
}

const collection = "/api/v1/subscribers"
const create = (json: unknown, options: CallOptions = {}) => () => ({ method: "POST", path: collection, options: { json, ...options } })

describe("the direct lane answers as the HttpApi does", () => {
  it("creates a subscriber with metadata: 201", async () => {
    const answer = await sameOnBoth(create({ email: "Ada@Example.com", metadata: { plan: "gold", n: 1, tags: ["a"] } }))
    expect(answer.status).toBe(201)
    expect(answer.body).toMatchObject({ email: "Ada@Example.com", status: "active", tags: [], metadata: { plan: "gold" } })
  })

  it("refuses a second subscriber with the same email in another letter case: 409 conflict", async () => {
    const email = freshEmail("case")
    const seeded = freshEmail("side")
    const [onLane, onApi] = await Promise.all([sideOf(lane, unlimited, seeded), sideOf(api, unlimited, seeded)])
    const twice = async (side: Side) => {
      const first = await call(side.server, "POST", collection, { key: side.key, json: { email } })
      expect(first.status).toBe(201)
      return call(side.server, "POST", collection, { key: side.key, json: { email: email.toUpperCase() } })
    }
    const [laneAnswer, apiAnswer] = await Promise.all([twice(onLane), twice(onApi)])
    expect(comparable(laneAnswer)).toEqual(comparable(apiAnswer))
    expectProblem(laneAnswer, "conflict", collection)
  })

  it("names every field that is wrong, unknown ones included: 400", async () => {
    const answer = await sameOnBoth(create({ email: "nope", emial: "x", metadata: "flat", tags: ["not-a-uuid"] }))
    expectProblem(answer, "validation_error", collection)
  })

  it("refuses a body that is not JSON, or not an object, or nested too deeply: 400", async () => {
    for (const body of ["{\"email\":", "null", "[1]", `${"[".repeat(40)}${"]".repeat(40)}`]) {
      const answer = await sameOnBoth(() => ({
        method: "POST",
        path: collection,
        options: { body, headers: { "content-type": "application/json" } }
      }))
      expectProblem(answer, "validation_error", collection)
    }
  })

  it("refuses tags the organization does not have: 400", async () => {
    const answer = await sameOnBoth(create({ email: freshEmail(), tags: ["0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"] }))
    expectProblem(answer, "validation_error", collection)
  })

  it("compresses a long answer for a client that accepts it", async () => {
    const answer = await sameOnBoth(create({ email: freshEmail(), metadata: { note: "x".repeat(4000) } }, {
      headers: { "accept-encoding": "gzip" }
    }))
    expect(answer.status).toBe(201)
    expect(answer.headers.get("content-encoding")).toBe("gzip")
    expect(answer.headers.get("vary")).toBe("Accept-Encoding")
  })

  it("reads a subscriber of the organization, by its id in any letter case: 200", async () => {
    const answer = await sameOnBoth((side) => ({ method: "GET", path: `${collection}/${side.subscriberId}` }))
    expect(answer.status).toBe(200)
    const upper = await sameOnBoth((side) => ({ method: "GET", path: `${collection}/${side.subscriberId.toUpperCase()}` }))
    expect(upper.status).toBe(200)
  })

  it("tells 404 for an id of nobody's, 403 for another organization's, 400 for an id that is not one", async () => {
    const nobody = await sameOnBoth(() => ({ method: "GET", path: `${collection}/0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10` }))
    expectProblem(nobody, "not_found", `${collection}/0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10`)
    const seeded = freshEmail("other")
    const [laneOther, apiOther] = await Promise.all([sideOf(lane, unlimited, seeded), sideOf(api, unlimited, seeded)])
    const foreign = await sameOnBoth((side) => ({
      method: "GET",
      path: `${collection}/${side.server === lane ? laneOther.subscriberId : apiOther.subscriberId}`
    }))
    expect(foreign.status).toBe(403)
    const notAnId = await sameOnBoth(() => ({ method: "GET", path: `${collection}/not-an-id` }))
    expectProblem(notAnId, "validation_error", `${collection}/not-an-id`)
  })

  it("refuses a key without the scope: 403", async () => {
    const [laneAnswer, apiAnswer] = await Promise.all([lane, api].map(async (server) => {
      const { organization } = await server.seedOrganization(unlimited)
      const readOnly = await server.createApiKey(organization, ["subscribers:read"])
      return call(server, "POST", collection, { key: readOnly, json: { email: freshEmail() } })
    }))
    expect(comparable(laneAnswer!)).toEqual(comparable(apiAnswer!))
    expectProblem(laneAnswer!, "forbidden", collection)
  })

  it("hands a key it cannot establish to the HttpApi", async () => {
    const badKey = await sameOnBoth(() => ({
      method: "GET",
      path: `${collection}/0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10`,
      options: { key: "svc_test_0000000000000000000000000000000000000000" }
    }))
    expectProblem(badKey, "unauthorized", `${collection}/0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10`)
    expect(badKey.headers.get("x-ratelimit-limit")).toBe("100")
  })

  it("refuses a key at once after it is revoked", async () => {
    const { key } = await lane.seedOrganization(unlimited)
    const issued = await call(lane, "POST", "/api/v1/api-keys", { key, json: { name: "second", scopes: ["*"] } })
    expect(issued.status, issued.text).toBe(201)
    const second = issued.body.key as string
    expect((await call(lane, "POST", collection, { key: second, json: { email: freshEmail() } })).status).toBe(201)
    const revoked = await call(lane, "DELETE", `/api/v1/api-keys/${issued.body.id}`, { key })
    expect(revoked.status, revoked.text).toBeLessThan(300)
    const refused = await call(lane, "POST", collection, { key: second, json: { email: freshEmail() } })
    expectProblem(refused, "unauthorized", collection)
  })

  it("echoes a sane X-Request-Id and logs one line per request with the caller", async () => {
    const { key, organization } = await lane.seedOrganization(unlimited)
    const answer = await call(lane, "POST", collection, {
      key,
      json: { email: freshEmail() },
      headers: { "x-request-id": "lane-request-1", "user-agent": "lane-test" }
    })
    expect(answer.status).toBe(201)
    expect(answer.headers.get("x-request-id")).toBe("lane-request-1")
    const lines = laneLines.filter((line) => line.request_id === "lane-request-1")
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatchObject({
      level: "info",
      msg: expect.stringMatching(/^POST \/api\/v1\/subscribers 201 \d+ms$/),
      method: "POST",
      path: collection,
      status: 201,
      client_address: expect.stringMatching(/127\.0\.0\.1/),
      user_agent: "lane-test",
      organization_id: organization.id,
      credential: expect.stringMatching(/^api_key:/)
    })
  })
})


describe("failures on the direct lane", () => {
  it("answers 500 internal_error telling nothing of the fault, and logs it with the request id", async () => {
    const lines: Array<Record<string, unknown>> = []
    const broken = await startHttpServer({
      adapters: failingSubscriberRepository(new Error("secret stack detail: table users_v2")),
      logger: capturingLogger(lines)
    })
    try {
      const { key } = await broken.seedOrganization(unlimited)
      const answer = await call(broken, "POST", collection, { key, json: { email: freshEmail() } })
      expectProblem(answer, "internal_error", collection)
      expect(answer.text).not.toContain("secret")
      const logged = lines.find((line) => line.level === "error")
      expect(logged?.cause).toContain("secret stack detail")
      expect(logged?.request_id).toBe(answer.headers.get("x-request-id"))
    } finally {
      await broken.close()
    }
  })

  it("answers 503 service_unavailable when the database fails", async () => {
    const broken = await startHttpServer({
      adapters: failingSubscriberRepository(new SqlError.SqlError({ cause: new Error("ECONNREFUSED"), message: "connect" }))
    })
    try {
      const { key } = await broken.seedOrganization(unlimited)
      const answer = await call(broken, "GET", `${collection}/0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10`, { key })
      expectProblem(answer, "service_unavailable", `${collection}/0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10`)
      expect(answer.text).not.toContain("ECONNREFUSED")
    } finally {
      await broken.close()
    }
  })
})

type Organization = { readonly tier: "enterprise" | "free"; readonly customRateLimit?: number }
type Request = (side: Side) => { readonly method: string; readonly path: string; readonly options?: CallOptions }

/**
 * The same requests, in turn, by one organization on each of `servers` (the first with the lane,
 * the second without), each answered the same on both; the answers of the first.
 */
const inTurnOnBoth = async (
  requests: ReadonlyArray<Request>,
  organization: Organization,
  servers: readonly [TestHttpServer, TestHttpServer] = [lane, api]
): Promise<Array<Answer>> => {
  const email = freshEmail("side")
  const sides = await Promise.all(servers.map((server) => sideOf(server, organization, email)))
  const answers: Array<Answer> = []
  for (const request of requests) {
    const [first, second] = await Promise.all(sides.map((side) => {
      const { method, options, path } = request(side)
      return call(side.server, method, path, { key: side.key, ...options })
    }))
    expect(comparable(first!)).toEqual(comparable(second!))
    answers.push(first!)
  }
  return answers
}

const nobody = `${collection}/0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10`
const budgetOf = (answer: Answer) => ({
  status: answer.status,
  limit: answer.headers.get("x-ratelimit-limit"),
  remaining: answer.headers.get("x-ratelimit-remaining"),
  reset: answer.headers.get("x-ratelimit-reset")
})

/**
 * A limit of 3 requests a minute, the first taken by the subscriber each side starts with: two
 * more are carried out, then reads and creates answer 429 (a create's body not even read) until
 * the window has passed; the subscriber refused then can be created after.
 */
const pastTheLimit = async (servers: readonly [TestHttpServer, TestHttpServer], advance: boolean) => {
  const refusedEmail = freshEmail("refused")
  const answers = await inTurnOnBoth([
    (side) => ({ method: "GET", path: `${collection}/${side.subscriberId}` }),
    create({ email: freshEmail() }),
    (side) => ({ method: "GET", path: `${collection}/${side.subscriberId}` }),
    create({ email: refusedEmail }),
    () => ({ method: "POST", path: collection, options: { body: "{\"email\":", headers: { "content-type": "application/json" } } })
  ], { tier: "enterprise", customRateLimit: 3 }, servers)
  expect(answers.map((answer) => answer.status)).toEqual([200, 201, 429, 429, 429])
  expect(answers.map((answer) => answer.headers.get("x-ratelimit-remaining"))).toEqual(["1", "0", "0", "0", "0"])
  for (const refused of answers.slice(2)) {
    expect(refused.headers.get("x-ratelimit-limit")).toBe("3")
    expect(refused.headers.get("retry-after")).toMatch(/^(59|60)$/)
    expect(refused.body.detail).toMatch(/^the organization's limit of 3 requests is reached; try again in (59|60) seconds$/)
  }
  expectProblem(answers[2]!, "rate_limited", answers[2]!.body.instance as string)
  expectProblem(answers[3]!, "rate_limited", collection)
  if (!advance) return
  for (const server of servers) server.advanceClock(61_000)
  // The window has passed on both servers: the subscriber refused before was never created.
  const [again] = await Promise.all(servers.map(async (server) => {
    const { key } = await server.seedOrganization({ tier: "enterprise", customRateLimit: 3 })
    return call(server, "POST", collection, { key, json: { email: refusedEmail } })
  }))
  expect(again!.status, again!.text).toBe(201)
}

describe("organizations with a rate limit, on the direct lane as on the HttpApi", () => {
  it("tell the budget on every answer, successes and errors alike, each request counted once", async () => {
    const answers = await inTurnOnBoth([
      (side) => ({ method: "GET", path: `${collection}/${side.subscriberId}` }),
      () => ({ method: "GET", path: nobody }),
      create({ email: freshEmail(), metadata: { plan: "gold" } }),
      create({ email: "nope" }),
      () => ({ method: "POST", path: collection, options: { body: "[1]", headers: { "content-type": "application/json" } } }),
      (side) => ({ method: "GET", path: `${collection}/${side.subscriberId}`, options: { headers: { "accept-encoding": "gzip" } } })
    ], { tier: "free" })
    expect(answers.map(budgetOf)).toEqual([200, 404, 201, 400, 400, 200].map((status, i) => ({
      status,
      limit: "100",
      remaining: String(98 - i),
      reset: expect.stringMatching(/^\d{10}$/)
    })))
  })

  it("answer 429 rate_limited with Retry-After past the limit, carrying nothing out, until the window has passed", async () => {
    await pastTheLimit([lane, api], true)
  })

  it.skipIf(!redis.available)(whenRunning(redis, "are counted in Redis alike"), async () => {
    const redisLimiter = RedisRateLimiterLive.pipe(
      Layer.provide(makeRedisClient(Redacted.make(redis.url ?? ""), { keyPrefix: `${redis.prefix}lane:${randomUUID()}:` }))
    )
    const servers = await Promise.all([
      startHttpServer({ adapters: redisLimiter }),
      startHttpServer({ adapters: redisLimiter, directLane: false })
    ])
    try {
      await pastTheLimit(servers, false)
    } finally {
      await Promise.all(servers.map((server) => server.close()))
    }
  })

  it("are let through with the whole limit remaining while Redis does not answer", async () => {
    // Nothing listens on port 1.
    const unreachable = RedisRateLimiterLive.pipe(Layer.provide(makeRedisClient(Redacted.make("redis://127.0.0.1:1"))))
    const servers = await Promise.all([
      startHttpServer({ adapters: unreachable }),
      startHttpServer({ adapters: unreachable, directLane: false })
    ])
    try {
      const answers = await inTurnOnBoth([
        (side) => ({ method: "GET", path: `${collection}/${side.subscriberId}` }),
        (side) => ({ method: "GET", path: `${collection}/${side.subscriberId}` }),
        create({ email: freshEmail() }),
        create({ email: freshEmail() })
      ], { tier: "enterprise", customRateLimit: 1 }, servers)
      expect(answers.map((answer) => [answer.status, answer.headers.get("x-ratelimit-remaining")])).toEqual([
        [200, "1"],
        [200, "1"],
        [201, "1"],
        [201, "1"]
      ])
    } finally {
      await Promise.all(servers.map((server) => server.close()))
    }
  })
})

/** Opens a connection to `server`, sends `text` and closes it at once, as a client that gives up. */
const sendAndAbort = async (server: TestHttpServer, text: string) => {
  const socket = connect(Number(new URL(server.baseUrl).port), "127.0.0.1")
  await once(socket, "connect")
  await new Promise<void>((resolve, reject) => socket.write(text, (error) => error ? reject(error) : resolve()))
  // Let the server take the request and start reading it.
  await new Promise((resolve) => setTimeout(resolve, 50))
  socket.destroy()
  await once(socket, "close")
}

describe("a client that disconnects on the direct lane", () => {
  it.each([
    ["without a rate limit", unlimited],
    ["with a rate limit", { tier: "free" } as const]
  ])("leaves nothing half-written and the server serving (%s)", async (_, organization) => {
    const errorsBefore = laneLines.filter((line) => line.level === "error").length
    const side = await sideOf(lane, organization)
    const email = freshEmail("partial")
    const complete = JSON.stringify({ email })
    const head = (length: number) =>
      `POST ${collection} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${side.key}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`
    // Headers only; half a body; a body that is whole JSON already but shorter than it was said to be.
    await sendAndAbort(lane, head(complete.length))
    await sendAndAbort(lane, head(complete.length) + complete.slice(0, 10))
    await sendAndAbort(lane, head(complete.length + 20) + complete)

    const read = await call(lane, "GET", `${collection}/${side.subscriberId}`, { key: side.key })
    expect(read.status, read.text).toBe(200)
    const listed = await call(lane, "GET", `${collection}?limit=100`, { key: side.key })
    expect(listed.status, listed.text).toBe(200)
    expect(listed.body.total).toBe(1)
    expect((listed.body.items as Array<{ readonly id: string }>).map((subscriber) => subscriber.id)).toEqual([side.subscriberId])
    // The same subscriber, sent whole, is created: nothing of it was kept before.
    const created = await call(lane, "POST", collection, { key: side.key, json: { email } })
    expect(created.status, created.text).toBe(201)
    expect(laneLines.filter((line) => line.level === "error")).toHaveLength(errorsBefore)
  })
})
