import {
  HttpApi,
  HttpApiEndpoint,
  HttpApiError,
  HttpApiGroup,
  HttpApiMiddleware,
  HttpApiSchema,
  type HttpServerResponse
} from "@effect/platform"
import { SqlError } from "@effect/sql"
import type { Principal } from "@roster/application"
import { Cause, Effect, Exit, Layer, Option, Redacted, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { once } from "node:events"
import type { IncomingMessage } from "node:http"
import { connect } from "node:net"
import { Readable } from "node:stream"
import { ReferenceApi } from "../../../adapters/http/index.js"
import { apiKeyScheme } from "../../../adapters/http/shared/api-key.js"
import { type DirectAnswer, directRoute } from "../../../adapters/http/shared/direct-lane.js"
import { FileBody } from "../../../adapters/http/shared/route-table.js"
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
import { comparable } from "../../support/comparable-answer.js"
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

/** A Node request as the lane sees it, its body (when given) sent as JSON of a declared length. */
const incoming = (method: string, url: string, headers: Readonly<Record<string, string>> = {}, body?: string) =>
  Object.assign(Readable.from(body === undefined ? [] : [Buffer.from(body)]), {
    method,
    url,
    headers: body === undefined
      ? { ...headers }
      : { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)), ...headers }
  }) as unknown as IncomingMessage

/** The answer of a route that took the request, for a principal its use case does not look at. */
const answered = (taken: DirectAnswer | undefined) => {
  expect(taken).toBeDefined()
  return Effect.runPromise(Effect.exit(taken!({} as Principal)))
}

const bodyOf = (response: HttpServerResponse.HttpServerResponse) =>
  response.body._tag === "Uint8Array" ? JSON.parse(new TextDecoder().decode(response.body.body)) : response.body._tag

const shown = {
  id: "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10",
  email: "ada@example.com",
  status: "active",
  tags: [],
  metadata: { plan: "gold" },
  created_at: "2026-01-02T03:04:05.000Z",
  updated_at: "2026-01-02T03:04:05.000Z"
} as const

class KeyAuthentication extends HttpApiMiddleware.Tag<KeyAuthentication>()("test/KeyAuthentication", {
  security: { apiKey: apiKeyScheme }
}) {}
class Audit extends HttpApiMiddleware.Tag<Audit>()("test/Audit") {}

const Thing = Schema.Struct({ name: Schema.String })
const ThingPath = Schema.Struct({ name: Schema.String })

/** Endpoints of every kind the lane takes or refuses. */
const ThingsApi = HttpApi.make("things")
  .add(
    HttpApiGroup.make("things")
      .add(HttpApiEndpoint.get("byName", "/things/:name").setPath(ThingPath).addSuccess(Thing))
      .add(HttpApiEndpoint.get("special", "/things/special").addSuccess(Thing))
      .add(HttpApiEndpoint.del("remove", "/things/:name").setPath(ThingPath))
      .add(HttpApiEndpoint.get("search", "/things").setUrlParams(Schema.Struct({ q: Schema.String })).addSuccess(Thing))
      .add(HttpApiEndpoint.post("upload", "/things").setPayload(HttpApiSchema.Multipart(Schema.Struct({}))))
      .add(HttpApiEndpoint.get("text", "/texts/:name").setPath(ThingPath).addSuccess(HttpApiSchema.Text()))
      .add(HttpApiEndpoint.get("either", "/either").addSuccess(Thing).addSuccess(Schema.Struct({}), { status: 202 }))
      .add(HttpApiEndpoint.get("anything", "/files/*").addSuccess(Thing))
      .add(HttpApiEndpoint.post("import", "/imports").setPayload(Thing).addSuccess(Thing).annotate(FileBody, true))
      .middleware(KeyAuthentication)
  )
  .add(HttpApiGroup.make("open").add(HttpApiEndpoint.get("hello", "/hello").addSuccess(Thing)))
  .add(
    HttpApiGroup.make("audited").add(HttpApiEndpoint.get("hello", "/audited").addSuccess(Thing))
      .middleware(KeyAuthentication)
      .middleware(Audit)
  )

const unused = () => Effect.die("not run")

describe("a route of the direct lane, read from its endpoint", () => {
  const subscriber = "/api/v1/subscribers/0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"

  it("takes the endpoint's method and path template, its parameter decoded by the path schema", async () => {
    const seen: Array<unknown> = []
    const get = directRoute(ReferenceApi, "subscribers", "get", ({ path }) => {
      seen.push(path.subscriber_id)
      return Effect.succeed(shown)
    })
    const taken = get(incoming("GET", subscriber), subscriber)
    const exit = await answered(taken)
    expect(Exit.isSuccess(exit)).toBe(true)
    const response = Exit.isSuccess(exit) ? exit.value : undefined
    expect(response?.status).toBe(200)
    expect(response?.headers["content-type"] ?? response?.body.contentType).toMatch(/^application\/json/)
    expect(bodyOf(response!)).toEqual(shown)
    expect(seen).toEqual(["0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"])
    expect(get(incoming("GET", subscriber.toUpperCase()), subscriber.replace(/[0-9a-f-]+$/, (id) => id.toUpperCase())))
      .toBeDefined()
    for (
      const path of [
        `${subscriber}/`,
        subscriber.replace("/0193", "/%30193"),
        "/api/v1/subscribers/not-an-id",
        "/api/v1/subscribers/",
        "/api/v1/subscribers",
        subscriber.replace("subscribers", "Subscribers"),
        `${subscriber};v=1`,
        `/api/v1/subscribers/${"0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"}/tags`
      ]
    ) {
      expect(get(incoming("GET", path), path), path).toBeUndefined()
    }
    expect(get(incoming("POST", subscriber), subscriber)).toBeUndefined()
    expect(get(incoming("HEAD", subscriber), subscriber)).toBeUndefined()
    // The endpoint takes no payload: a request with a body is the HttpApi's.
    expect(get(incoming("GET", subscriber, {}, "{}"), subscriber)).toBeUndefined()
  })

  it("decodes the payload by the endpoint's schema and answers the endpoint's success status", async () => {
    const seen: Array<unknown> = []
    const create = directRoute(ReferenceApi, "subscribers", "create", ({ payload }) => {
      seen.push(payload)
      return Effect.succeed(shown)
    })
    const collection = "/api/v1/subscribers"
    const exit = await answered(create(incoming("POST", collection, {}, JSON.stringify({ email: " ada@example.com ", metadata: { a: 1 } })), collection))
    expect(Exit.isSuccess(exit) && exit.value.status).toBe(201)
    expect(Exit.isSuccess(exit) && bodyOf(exit.value)).toEqual(shown)
    expect(seen).toEqual([{ email: "ada@example.com", metadata: { a: 1 } }])

    const refused = await answered(create(incoming("POST", collection, {}, JSON.stringify({ email: "nope", extra: 1 })), collection))
    expect(Exit.isFailure(refused)).toBe(true)
    const error = Exit.isFailure(refused) ? Cause.failureOption(refused.cause) : Option.none()
    expect(Option.getOrThrow(error)).toBeInstanceOf(HttpApiError.HttpApiDecodeError)
    const fields = (Option.getOrThrow(error) as HttpApiError.HttpApiDecodeError).issues.map((issue) => issue.path.join("."))
    expect(fields.sort()).toEqual(["email", "extra"])
    expect(seen).toHaveLength(1)
  })

  it("leaves to the HttpApi a body it does not read itself: another type, no length, too long, or a key to replay", () => {
    const create = directRoute(ReferenceApi, "subscribers", "create", unused)
    const collection = "/api/v1/subscribers"
    const body = JSON.stringify({ email: "ada@example.com" })
    expect(create(incoming("POST", collection, {}, body), collection)).toBeDefined()
    expect(create(incoming("POST", collection, { "content-type": "application/json; charset=utf-8" }, body), collection)).toBeDefined()
    for (
      const headers of [
        { "content-type": "text/plain" },
        { "content-type": "application/merge-patch+json" },
        { "content-length": "0" },
        { "content-length": String(2 * 1024 * 1024) },
        { "transfer-encoding": "chunked" },
        { "idempotency-key": "once" }
      ] as ReadonlyArray<Record<string, string>>
    ) {
      expect(create(incoming("POST", collection, headers, body), collection), JSON.stringify(headers)).toBeUndefined()
    }
    expect(create(incoming("POST", collection), collection)).toBeUndefined()
    expect(create(incoming("POST", `${collection}/`, {}, body), `${collection}/`)).toBeUndefined()
  })

  it("leaves to the HttpApi a path that a route of the same method holds as a fixed segment", () => {
    const byName = directRoute(ThingsApi, "things", "byName", ({ path }) => Effect.succeed({ name: path.name }))
    expect(byName(incoming("GET", "/things/ada"), "/things/ada")).toBeDefined()
    expect(byName(incoming("GET", "/things/special"), "/things/special")).toBeUndefined()
    const remove = directRoute(ThingsApi, "things", "remove", () => Effect.void)
    expect(remove(incoming("DELETE", "/things/special"), "/things/special")).toBeDefined()
  })

  it("answers a success without a body with its status alone", async () => {
    const remove = directRoute(ThingsApi, "things", "remove", () => Effect.void)
    const exit = await answered(remove(incoming("DELETE", "/things/ada"), "/things/ada"))
    expect(Exit.isSuccess(exit) && exit.value.status).toBe(204)
    expect(Exit.isSuccess(exit) && exit.value.body._tag).toBe("Empty")
  })

  it("answers a value by the first of the endpoint's successes that encodes it, with that success's status", async () => {
    const answers: Array<unknown> = [{ name: "ada" }, {}]
    const either = directRoute(ThingsApi, "things", "either", () => Effect.succeed(answers.shift() as { name: string }))
    const thing = await answered(either(incoming("GET", "/either"), "/either"))
    expect(Exit.isSuccess(thing) && [thing.value.status, bodyOf(thing.value)]).toEqual([200, { name: "ada" }])
    const other = await answered(either(incoming("GET", "/either"), "/either"))
    expect(Exit.isSuccess(other) && [other.value.status, bodyOf(other.value)]).toEqual([202, {}])
  })

  it("fails as the HttpApi does when the success does not encode by the endpoint's schema", async () => {
    const byName = directRoute(ThingsApi, "things", "byName", () => Effect.succeed({ name: 42 as unknown as string }))
    const exit = await answered(byName(incoming("GET", "/things/ada"), "/things/ada"))
    const error = Exit.isFailure(exit) ? Option.getOrUndefined(Cause.failureOption(exit.cause)) : undefined
    expect(error).toBeInstanceOf(HttpApiError.HttpApiDecodeError)
  })

  it.each([
    [() => directRoute(ThingsApi, "things", "search", unused), /things\.search: it reads query parameters or headers$/],
    [() => directRoute(ThingsApi, "things", "upload", unused), /things\.upload: its payload is not JSON$/],
    [() => directRoute(ThingsApi, "things", "text", unused), /things\.text: its success is not JSON$/],
    [() => directRoute(ThingsApi, "things", "anything", unused), /the path \/files\/\*: \* is not a fixed segment or a plain parameter$/],
    [() => directRoute(ThingsApi, "open", "hello", unused), /open\.hello: it is not behind an authentication by API key$/],
    [() => directRoute(ThingsApi, "audited", "hello", unused), /audited\.hello: its middleware test\/Audit is not an authentication by API key$/],
    [() => directRoute(ThingsApi, "things", "import", unused), /things\.import: its body is not JSON$/],
    [() => directRoute(ReferenceApi, "imports", "start", unused), /imports\.start: it reads query parameters or headers$/],
    [() => directRoute(ReferenceApi, "subscribers", "list", unused), /subscribers\.list: it reads query parameters or headers$/]
  ])("is not built for an endpoint it cannot serve as the HttpApi does (%#)", (build, reason) => {
    expect(build).toThrow(reason)
  })
})
