/**
 * The direct lane answers every request as the HttpApi does, whatever the request: generated
 * bodies (valid and invalid JSON, wrong types, unknown fields, metadata of every shape, bodies deep
 * and big within and beyond the limits, email variants), headers (content types, missing, blank and
 * invalid API keys, Accept-Encoding, Idempotency-Key, X-Request-Id) and paths (ids of the caller's,
 * of another organization's and of nobody's subscribers, ids that are not ids, percent-encoding,
 * trailing slashes, query strings) are sent to a server with the lane and to one without, and their
 * answers must be the same (ids, times and request ids aside). fast-check prints the seed and the
 * smallest request that told them apart.
 */
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { comparable } from "../../support/comparable-answer.js"
import { type Answer, call, startHttpServer, type TestHttpServer } from "../../support/http-server.js"

/** The values a generated request names by placeholder (`@@own@@`), each server's own. */
type Placeholder = "key" | "readKey" | "revokedKey" | "own" | "ownUpper" | "ownEncoded" | "foreign" | "tag" | "tagUpper" | "foreignTag"

interface Side {
  readonly server: TestHttpServer
  readonly values: Readonly<Record<Placeholder, string>>
}

let lane: Side
let api: Side

/** Organizations without a rate limit: a generated run may send more than a plan allows in a minute. */
const unlimited = { tier: "enterprise", customRateLimit: 0 } as const

const sideOf = async (server: TestHttpServer): Promise<Side> => {
  const { key, organization } = await server.seedOrganization(unlimited)
  const foreign = await server.seedOrganization(unlimited)
  const made = async (owner: string, path: string, json: unknown) => {
    const answer = await call(server, "POST", path, { key: owner, json })
    expect(answer.status, answer.text).toBe(201)
    return answer.body.id as string
  }
  const tag = await made(key, "/api/v1/tags", { name: "Weekly" })
  const own = await made(key, "/api/v1/subscribers", { email: "own@example.com", tags: [tag] })
  return {
    server,
    values: {
      key,
      readKey: await server.createApiKey(organization, ["subscribers:read"]),
      revokedKey: await server.createRevokedApiKey(organization),
      own,
      ownUpper: own.toUpperCase(),
      // The id with its first character percent-encoded: the router decodes it, the lane leaves it.
      ownEncoded: `%${own.charCodeAt(0).toString(16)}${own.slice(1)}`,
      foreign: await made(foreign.key, "/api/v1/subscribers", { email: "own@example.com" }),
      tag,
      tagUpper: tag.toUpperCase(),
      foreignTag: await made(foreign.key, "/api/v1/tags", { name: "Weekly" })
    }
  }
}

beforeAll(async () => {
  const [withLane, without] = await Promise.all([startHttpServer(), startHttpServer({ directLane: false })])
  ;[lane, api] = await Promise.all([sideOf(withLane!), sideOf(without!)])
})
afterAll(() => Promise.all([lane.server.close(), api.server.close()]))

const placeholders = /@@(\w+)@@/g
const fill = (text: string, side: Side) =>
  text.replace(placeholders, (_, name: string) => side.values[name as Placeholder] ?? `@@${name}@@`)

const MIB = 1024 * 1024

/** A value that is usually `usual`, sometimes one of `unusual`. */
const mostly = <A>(usual: A, unusual: fc.Arbitrary<A>, weight = 4) =>
  fc.oneof({ weight, arbitrary: fc.constant(usual) }, { weight: 1, arbitrary: unusual })

// ---------------------------------------------------------------------------------------------
// bodies

const localPart = fc.stringMatching(/^[a-z][a-z0-9._+-]{0,14}[a-z0-9]$/)

const email = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(localPart, fc.constantFrom("example.com", "Example.COM", "mail.example.org")).map(([l, d]) => `${l}@${d}`) },
  // Addresses that meet again, in another letter case or with spaces around: 409 conflict after the first.
  { weight: 2, arbitrary: fc.constantFrom("again@example.com", "AGAIN@example.com", "  again@example.com  ", "own@example.com") },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "",
      " ",
      "nope",
      "a@",
      "@example.com",
      "a@b",
      "a b@example.com",
      "ada@example.com\n",
      "ünïcödé@exämple.com",
      "a\u0000@example.com",
      `${"l".repeat(64)}@${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(57)}.com`,
      `${"l".repeat(65)}@example.com`,
      `${"x".repeat(250)}@example.com`
    )
  },
  { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.constant(null), fc.boolean(), fc.array(fc.string(), { maxLength: 2 }), fc.object({ maxDepth: 1 })) }
)

const tagIds = fc.oneof(
  { weight: 3, arbitrary: fc.array(fc.constantFrom("@@tag@@", "@@tagUpper@@"), { maxLength: 3 }) },
  {
    weight: 2,
    arbitrary: fc.array(fc.oneof(fc.constantFrom("@@tag@@", "@@foreignTag@@", "not-a-uuid", ""), fc.uuid()), { maxLength: 4 })
  },
  { weight: 1, arbitrary: fc.oneof(fc.constant(null), fc.constant("@@tag@@"), fc.integer(), fc.object({ maxDepth: 1 })) }
)

/** `{ "a": { "a": ... } }`, `depth` objects deep. */
const nested = (depth: number): unknown => depth === 0 ? "leaf" : { a: nested(depth - 1) }

const metadata = fc.oneof(
  { weight: 4, arbitrary: fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.fullUnicodeString({ maxLength: 8 }), fc.unicodeJsonValue({ maxDepth: 2 }), { maxKeys: 4 }) },
  // The body nests 1 deeper than the metadata, and at most 32 levels are taken.
  { weight: 1, arbitrary: fc.integer({ min: 28, max: 34 }).map(nested) },
  { weight: 1, arbitrary: fc.constantFrom(3_000, 70_000, MIB - 200, MIB + 10).map((size) => ({ note: "x".repeat(size) })) },
  { weight: 1, arbitrary: fc.oneof(fc.constant("flat"), fc.constant(null), fc.integer(), fc.array(fc.integer(), { maxLength: 3 })) }
)

/** Fields no subscriber has, or none it is created with. */
const unknownFields = fc.dictionary(
  fc.constantFrom("emial", "status", "id", "organization_id", "created_at", "__proto__", "constructor"),
  fc.jsonValue({ maxDepth: 1 }),
  { maxKeys: 2 }
)

const fields = fc.tuple(
  fc.record({ email, tags: tagIds, metadata }, { requiredKeys: ["email"] }),
  fc.record({ email, tags: tagIds, metadata }, { requiredKeys: [] }),
  unknownFields
).chain(([usual, unusual, unknown]) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constant(usual) },
    { weight: 1, arbitrary: fc.constant(unusual) },
    { weight: 1, arbitrary: fc.constant(Object.fromEntries([...Object.entries(usual), ...Object.entries(unknown)])) }
  )
)

const notJson = fc.oneof(
  fc.constantFrom(
    "",
    " ",
    "{",
    "{\"email\":",
    "null",
    "[1]",
    "\"ada@example.com\"",
    "1",
    "{}",
    "\uFEFF{\"email\":\"bom@example.com\"}",
    "{\"email\":\"comma@example.com\",}",
    "{'email':'quote@example.com'}",
    "{\"email\":\"dup@example.com\",\"email\":\"dup2@example.com\"}",
    `${"[".repeat(33)}${"]".repeat(33)}`,
    `{"email":"deep@example.com","metadata":${"[".repeat(40)}${"]".repeat(40)}}`
  ),
  fc.string({ maxLength: 40 }),
  fc.constantFrom(MIB + 1, 2 * MIB).map((size) => `{"email":"big@example.com","metadata":{"note":"${"x".repeat(size)}"}}`)
)

/** Bytes that are not UTF-8 inside an otherwise valid body. */
const notUtf8 = fc.constant(new Uint8Array([...Buffer.from("{\"email\":\"a"), 0xff, 0xfe, ...Buffer.from("@example.com\"}")]))

const body: fc.Arbitrary<string | Uint8Array> = fc.oneof(
  { weight: 8, arbitrary: fields.map((value) => JSON.stringify(value)) },
  { weight: 2, arbitrary: notJson },
  { weight: 1, arbitrary: notUtf8 }
)

// ---------------------------------------------------------------------------------------------
// headers and paths

const apiKey = fc.oneof(
  { weight: 12, arbitrary: fc.constant<string | undefined>("@@key@@") },
  { weight: 1, arbitrary: fc.constant<string | undefined>("@@readKey@@") },
  { weight: 1, arbitrary: fc.constant<string | undefined>("  @@key@@\t") },
  {
    weight: 3,
    arbitrary: fc.constantFrom<string | undefined>(
      undefined,
      "",
      "   ",
      "@@revokedKey@@",
      "svc_test_0000000000000000000000000000000000000000",
      "nope",
      "@@key@@, @@key@@"
    )
  }
)

const contentType = mostly<string | undefined>(
  "application/json",
  fc.constantFrom(
    undefined,
    "application/json; charset=utf-8",
    "application/json;charset=UTF-8",
    "Application/JSON",
    "application/json; charset=latin1",
    "application/merge-patch+json",
    "text/plain",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x"
  ),
  6
)

const headers = fc.record({
  "x-api-key": apiKey,
  "accept-encoding": mostly<string | undefined>(undefined, fc.constantFrom("gzip", "br", "gzip, br", "deflate", "identity", "gzip;q=0", "*")),
  "idempotency-key": mostly<string | undefined>(undefined, fc.oneof(fc.uuid(), fc.constant("replayed-key"))),
  "x-request-id": mostly<string | undefined>(undefined, fc.oneof(fc.stringMatching(/^[A-Za-z0-9._-]{1,40}$/), fc.constantFrom("with space", "x".repeat(300)))),
  accept: mostly<string | undefined>(undefined, fc.constantFrom("text/html", "application/problem+json", "*/*")),
  cookie: mostly<string | undefined>(undefined, fc.constant("svc_session=not-a-session"), 8)
})

const collection = "/api/v1/subscribers"

const createPath = mostly(
  collection,
  fc.constantFrom(
    `${collection}/`,
    `${collection}?`,
    `${collection}?dry_run=1`,
    "/api/v1/Subscribers",
    `${collection};v=1`,
    "/api/v1//subscribers",
    `${collection}/%2e`
  ),
  8
)

const itemPath = fc.oneof(
  { weight: 6, arbitrary: fc.constant("@@own@@") },
  {
    weight: 4,
    arbitrary: fc.oneof(
      fc.constantFrom(
        "@@ownUpper@@",
        "@@foreign@@",
        "not-a-uuid",
        "12345",
        "@@own@@/",
        "@@own@@?expand=tags",
        "@@own@@;v=1",
        "@@ownEncoded@@",
        "@@own@@%20",
        "%20@@own@@",
        "by-email",
        "imports",
        "%zz",
        "%C3%A9",
        "@@own@@/tags",
        "x".repeat(1100)
      ),
      fc.uuid()
    )
  }
).map((id) => `${collection}/${id}`)

interface Generated {
  readonly method: string
  readonly path: string
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly body?: string | Uint8Array | undefined
  /** Sent in chunks, without a length. */
  readonly chunked?: boolean
}

const create: fc.Arbitrary<Generated> = fc.record({
  path: createPath,
  headers,
  contentType,
  body,
  chunked: mostly(false, fc.constant(true), 6)
}).map(({ body, chunked, contentType, headers, path }) => ({
  method: "POST",
  path,
  headers: { ...headers, "content-type": contentType },
  body,
  chunked
}))

const get: fc.Arbitrary<Generated> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ method: fc.constant("GET"), path: itemPath, headers }) },
  // The router answers HEAD as GET, and the lane leaves it to the router.
  {
    weight: 1,
    arbitrary: fc.record({
      method: fc.constant("HEAD"),
      path: fc.oneof(fc.constantFrom("@@own@@", "@@foreign@@"), fc.uuid()).map((id) => `${collection}/${id}`),
      headers
    })
  }
)

/** Other methods at the lane's paths: the HttpApi's other routes, or 405. */
const other: fc.Arbitrary<Generated> = fc.record({
  method: fc.constantFrom("PUT", "DELETE", "PATCH", "POST"),
  path: fc.oneof(fc.constant(collection), itemPath),
  headers,
  body: fc.option(body, { nil: undefined })
}).map((request) => ({ ...request, headers: { ...request.headers, "content-type": "application/json" } }))

const request = fc.oneof({ weight: 6, arbitrary: create }, { weight: 5, arbitrary: get }, { weight: 1, arbitrary: other })

// ---------------------------------------------------------------------------------------------

const chunksOf = (bytes: Uint8Array) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (let at = 0; at < bytes.length; at += 16 * 1024) controller.enqueue(bytes.subarray(at, at + 16 * 1024))
      controller.close()
    }
  })

/** How long a side may take to answer: only a hang takes this long. */
const ANSWER_DEADLINE_MS = 10_000

/**
 * Sends `generated` to one side, its placeholders filled with the side's values: the side's
 * answer, or what went wrong instead (no answer within the deadline, a connection closed).
 */
const send = async (side: Side, generated: Generated): Promise<Answer | string> => {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(generated.headers)) {
    if (value !== undefined) headers[name] = fill(value, side)
  }
  const text = typeof generated.body === "string" ? fill(generated.body, side) : generated.body
  const bytes = text === undefined ? undefined : typeof text === "string" ? new TextEncoder().encode(text) : text
  try {
    const response = await fetch(`${side.server.baseUrl}${fill(generated.path, side)}`, {
      method: generated.method,
      headers,
      signal: AbortSignal.timeout(ANSWER_DEADLINE_MS),
      ...(bytes === undefined
        ? {}
        : generated.chunked === true
        ? { body: chunksOf(bytes), duplex: "half" }
        : { body: bytes })
    } as RequestInit)
    const answerText = await response.text()
    return { status: response.status, headers: response.headers, text: answerText, body: answerText }
  } catch (error) {
    return `no answer: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`
  }
}

const comparableOrFailure = (answer: Answer | string) => typeof answer === "string" ? answer : comparable(answer)

describe("the direct lane against the HttpApi, over generated requests", () => {
  // Bodies of a mebibyte and more go to both servers: more than the default deadline allows on a busy machine.
  it("answers every request as the HttpApi does", async () => {
    const statuses: Array<number> = []
    await fc.assert(
      fc.asyncProperty(request, async (generated) => {
        const [onLane, onApi] = await Promise.all([send(lane, generated), send(api, generated)])
        expect(comparableOrFailure(onLane), `${generated.method} ${generated.path}`).toEqual(comparableOrFailure(onApi))
        // Both answered: a generated request always gets an answer.
        if (typeof onLane === "string" || typeof onApi === "string") return expect.fail(`${onLane} / ${onApi}`)
        const requestId = generated.headers["x-request-id"]
        if (requestId !== undefined && /^[A-Za-z0-9._-]{1,128}$/.test(requestId)) {
          expect(onLane.headers.get("x-request-id")).toBe(requestId)
          expect(onApi.headers.get("x-request-id")).toBe(requestId)
        }
        statuses.push(onLane.status)
      }),
      { numRuns: 150 }
    )
    // The runs reached the use cases: subscribers were created and read, not only refused.
    expect(statuses).toContain(201)
    expect(statuses).toContain(200)
  }, 120_000)
})
