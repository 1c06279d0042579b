import { SqlError } from "@effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  call,
  capturingLogger,
  failingSubscriberRepository,
  startHttpServer,
  type TestHttpServer
} from "../../support/http-server.js"
import { createSubscriber, expectInvalid, expectProblem, freshEmail, sendChunked, uuidPattern } from "../helpers.js"

let server: TestHttpServer
let key: string
beforeAll(async () => {
  server = await startHttpServer()
  ;({ key } = await server.seedOrganization())
})
afterAll(() => server.close())

const MiB = 1024 * 1024

describe("400 validation_error", () => {
  const path = "/api/v1/subscribers"

  it("names an unknown field, as a typo or a field the client may not set", async () => {
    const answer = await call(server, "POST", path, { key, json: { email: freshEmail(), emial: "x", id: "y" } })
    expectInvalid(answer, path, ["emial", "id"])
  })

  it("reports every bad field at once", async () => {
    const answer = await call(server, "POST", path, {
      key,
      json: { email: 42, tags: ["not-a-uuid", 7], metadata: "flat", extra: true }
    })
    expectInvalid(answer, path, ["email", "tags[0]", "tags[1]", "metadata", "extra"])
    expect(answer.body.errors).toHaveLength(5)
  })

  it("answers for a missing required field", async () => {
    expectInvalid(await call(server, "POST", path, { key, json: { metadata: {} } }), path, ["email"])
  })

  it("answers for malformed JSON, naming the body", async () => {
    const answer = await call(server, "POST", path, {
      key,
      body: "{\"email\": \"a@example.com\",",
      headers: { "content-type": "application/json" }
    })
    expectInvalid(answer, path, ["body"])
    expect(answer.body.detail).toBe("body: is not valid JSON")
  })

  for (const [label, body] of [["an array", "[1,2]"], ["null", "null"], ["a string", "\"a@example.com\""], ["nothing", ""]]) {
    it(`answers for ${label} where an object is expected`, async () => {
      const answer = await call(server, "POST", path, { key, body, headers: { "content-type": "application/json" } })
      expectInvalid(answer, path, ["body"])
    })
  }

  it("answers for an invalid email, trimming around a valid one", async () => {
    expectInvalid(await call(server, "POST", path, { key, json: { email: "a@@example.com" } }), path, ["email"])
    const trimmed = await call(server, "POST", path, { key, json: { email: "  spaced@example.com\t" } })
    expect(trimmed.body.email).toBe("spaced@example.com")
  })

  it("answers for metadata with more than 64 keys or more than 16 KiB", async () => {
    const manyKeys = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, i]))
    expectInvalid(await call(server, "POST", path, { key, json: { email: freshEmail(), metadata: manyKeys } }), path, [
      "metadata"
    ])
    const big = { text: "x".repeat(17 * 1024) }
    expectInvalid(await call(server, "POST", path, { key, json: { email: freshEmail(), metadata: big } }), path, [
      "metadata"
    ])
  })

  it("answers for metadata it could not keep as sent: __proto__ keys and numbers beyond JSON", async () => {
    for (const metadata of ["{\"__proto__\": {\"admin\": true}}", "{\"n\": 1e999}", "{\"s\": \"\\ud800\"}"]) {
      const answer = await call(server, "POST", path, {
        key,
        body: `{"email": "${freshEmail()}", "metadata": ${metadata}}`,
        headers: { "content-type": "application/json" }
      })
      expectInvalid(answer, path, ["metadata"])
    }
  })

  it("answers for a __proto__ field of the body", async () => {
    const answer = await call(server, "POST", path, {
      key,
      body: `{"email": "${freshEmail()}", "__proto__": {"status": "bounced"}}`,
      headers: { "content-type": "application/json" }
    })
    expectInvalid(answer, path, ["__proto__"])
  })

  it("answers for a body nested more than 32 levels deep", async () => {
    const deep = `${"[".repeat(40)}${"]".repeat(40)}`
    const answer = await call(server, "POST", path, {
      key,
      body: `{"email": "${freshEmail()}", "metadata": {"deep": ${deep}}}`,
      headers: { "content-type": "application/json" }
    })
    expectInvalid(answer, path, ["body"])
  })

  it("answers for more than 1000 tag ids in one request", async () => {
    const tags = Array.from({ length: 1001 }, () => "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10")
    expectInvalid(await call(server, "POST", path, { key, json: { email: freshEmail(), tags } }), path, ["tags"])
  })

  it("answers for a path id that is not a UUID", async () => {
    const tagPath = "/api/v1/subscribers/0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10/tags/nope"
    expectInvalid(await call(server, "DELETE", tagPath, { key }), tagPath, ["tag_id"])
  })

  it("answers for a path parameter that is not valid percent-encoded UTF-8 or is far too long", async () => {
    for (const path of ["/api/v1/tags/by-name/%ED%A0%80", `/api/v1/subscribers/by-email/${"a".repeat(2000)}%40example.com`]) {
      expectInvalid(await call(server, "GET", path, { key }), path, ["path"])
    }
  })

  it("shortens what it repeats of a long bad value", async () => {
    const answer = await call(server, "POST", path, { key, json: { email: freshEmail(), tags: "y".repeat(100_000) } })
    expectInvalid(answer, path, ["tags"])
    expect(answer.text.length).toBeLessThan(2_000)
  })
})

describe("unknown routes and methods", () => {
  for (const path of ["/nothing", "/api/v1/nothing", "/api/v2/subscribers", "/api/v1/subscribers/a/b/c/d"]) {
    it(`GET ${path} answers 404 not_found`, async () => {
      const answer = await call(server, "GET", path, { key })
      expectProblem(answer, "not_found", path)
      expect(answer.headers.get("allow")).toBeNull()
    })
  }

  const wrongMethods: ReadonlyArray<readonly [string, string, string]> = [
    ["PATCH", "/api/v1/subscribers/0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10", "DELETE, GET, PUT"],
    ["DELETE", "/api/v1/subscribers", "GET, POST"],
    ["PUT", "/api/v1/subscribers/0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10/tags", "GET, POST"],
    ["POST", "/api/v1/tags/by-name/News", "GET"],
    ["POST", "/health", "GET"],
    ["DELETE", "/openapi.json", "GET"],
    ["POST", "/errors/not_found", "GET"],
    ["PATCH", "/api/v1/tags/", "GET, POST"]
  ]
  for (const [method, path, allow] of wrongMethods) {
    it(`${method} ${path} answers 405 method_not_allowed with Allow: ${allow}`, async () => {
      const answer = await call(server, method, path, { key })
      expectProblem(answer, "method_not_allowed", path)
      expect(answer.headers.get("allow")).toBe(allow)
    })
  }
})

describe("bodies", () => {
  const path = "/api/v1/subscribers"

  it("answers 413 payload_too_large for a body over 1 MiB", async () => {
    const body = JSON.stringify({ email: freshEmail(), metadata: { text: "x".repeat(MiB) } })
    const answer = await call(server, "POST", path, { key, body, headers: { "content-type": "application/json" } })
    expectProblem(answer, "payload_too_large", path)
  })

  it("answers 413 to a 2 MiB body sent in chunks, without Content-Length, and keeps the connection", async () => {
    const { port } = new URL(server.baseUrl)
    const sent = await sendChunked(Number(port), path, key, 2 * MiB, "/api/v1/subscribers")
    expect(sent.status).toBe(413)
    expect(JSON.parse(sent.body)).toMatchObject({ status: 413, detail: `the body is larger than ${MiB} bytes`, instance: path })
    // The same connection answers the next request.
    expect(sent.next).toBe(200)
  })

  it("reads a body of exactly 1 MiB", async () => {
    const prefix = `{"email": "${freshEmail()}", "metadata": {"text": "`
    const suffix = "\"}}"
    const body = prefix + "x".repeat(MiB - prefix.length - suffix.length) + suffix
    expect(Buffer.byteLength(body)).toBe(MiB)
    const answer = await call(server, "POST", path, { key, body, headers: { "content-type": "application/json" } })
    expectInvalid(answer, path, ["metadata"])
  })

  it("answers 413 before checking the credential", async () => {
    const body = "x".repeat(2 * MiB)
    const answer = await call(server, "PUT", "/api/v1/tags/0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10", {
      body,
      headers: { "content-type": "application/json" }
    })
    expectProblem(answer, "payload_too_large", "/api/v1/tags/0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10")
  })

  for (const contentType of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/xml"]) {
    it(`answers 415 unsupported_media_type for ${contentType}`, async () => {
      const answer = await call(server, "POST", path, { key, body: "email=a@example.com", headers: { "content-type": contentType } })
      expectProblem(answer, "unsupported_media_type", path)
    })
  }

  // An empty body's type is no reason to refuse it, and no form is read from it: it is an absent JSON body.
  for (const contentType of ["application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "text/csv"]) {
    it(`answers an empty body sent as ${contentType} as a missing JSON object`, async () => {
      const answer = await call(server, "POST", path, { key, body: "", headers: { "content-type": contentType } })
      expect(answer.status).toBe(400)
      expect(answer.body.errors).toEqual([{ field: "body", message: "must be a JSON object" }])
    })
  }

  it("accepts application/json with a charset and a JSON body sent in chunks", async () => {
    const withCharset = await call(server, "POST", path, {
      key,
      body: JSON.stringify({ email: freshEmail() }),
      headers: { "content-type": "application/json; charset=utf-8" }
    })
    expect(withCharset.status).toBe(201)
    const email = freshEmail()
    const encoded = new TextEncoder().encode(JSON.stringify({ email }))
    const chunked = await fetch(`${server.baseUrl}${path}`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(encoded.slice(0, 5))
          controller.enqueue(encoded.slice(5))
          controller.close()
        }
      }),
      duplex: "half"
    } as RequestInit)
    expect(chunked.status).toBe(201)
    expect(((await chunked.json()) as { email: string }).email).toBe(email)
  })
})

describe("X-Request-Id", () => {
  it("is on every answer, a fresh UUID when the client sent none", async () => {
    const ok = await call(server, "GET", "/api/v1/subscribers", { key })
    const problem = await call(server, "GET", "/api/v1/subscribers")
    const missing = await call(server, "GET", "/nowhere")
    const ids = [ok, problem, missing].map((a) => a.headers.get("x-request-id"))
    for (const id of ids) expect(id).toMatch(uuidPattern)
    expect(new Set(ids).size).toBe(3)
  })

  it("echoes a sane incoming id and replaces one that is not", async () => {
    const echoed = await call(server, "GET", "/health", { headers: { "x-request-id": "req_abc-123.XYZ" } })
    expect(echoed.headers.get("x-request-id")).toBe("req_abc-123.XYZ")
    for (const insane of ["has spaces in it", "x".repeat(200), "<script>"]) {
      const replaced = await call(server, "GET", "/health", { headers: { "x-request-id": insane } })
      expect(replaced.headers.get("x-request-id")).toMatch(uuidPattern)
    }
  })
})

describe("the errors base URL", () => {
  it("is ERRORS_BASE_URL when set", async () => {
    const configured = await startHttpServer({ config: { ERRORS_BASE_URL: "https://docs.example.org/problems/" } })
    try {
      const answer = await call(configured, "GET", "/nowhere")
      expectProblem(answer, "not_found", "/nowhere", "https://docs.example.org/problems")
    } finally {
      await configured.close()
    }
  })

  it("is PUBLIC_BASE_URL/errors, or http://localhost:PORT/errors, when ERRORS_BASE_URL is not set", async () => {
    const publicBase = await startHttpServer({ config: { PUBLIC_BASE_URL: "https://roster.example.com" } })
    const port = await startHttpServer({ config: { PORT: "8080" } })
    try {
      expectProblem(await call(publicBase, "GET", "/x"), "not_found", "/x", "https://roster.example.com/errors")
      expectProblem(await call(port, "GET", "/x"), "not_found", "/x", "http://localhost:8080/errors")
    } finally {
      await publicBase.close()
      await port.close()
    }
  })

  it("stops the start with the variable named when it is not a URL", async () => {
    await expect(startHttpServer({ config: { ERRORS_BASE_URL: "not a url" } })).rejects.toThrow(/ERRORS_BASE_URL/)
  })
})

describe("failures of the service", () => {
  it("answers 500 internal_error telling nothing of the fault, and logs it with the request id", async () => {
    const lines: Array<Record<string, unknown>> = []
    const broken = await startHttpServer({
      adapters: failingSubscriberRepository(new Error("secret stack detail: table users_v2")),
      logger: capturingLogger(lines)
    })
    try {
      const { key: brokenKey } = await broken.seedOrganization()
      const answer = await call(broken, "GET", "/api/v1/subscribers", { key: brokenKey })
      expectProblem(answer, "internal_error", "/api/v1/subscribers")
      expect(answer.text).not.toContain("secret")
      expect(answer.text).not.toContain("users_v2")
      const requestId = answer.headers.get("x-request-id")
      const logged = lines.find((line) => line.level === "error")
      expect(logged?.cause).toContain("secret stack detail")
      expect(logged?.request_id).toBe(requestId)
    } finally {
      await broken.close()
    }
  })

  it("answers 503 service_unavailable when the database fails", async () => {
    const broken = await startHttpServer({
      adapters: failingSubscriberRepository(new SqlError.SqlError({ cause: new Error("ECONNREFUSED"), message: "connect" }))
    })
    try {
      const { key: brokenKey } = await broken.seedOrganization()
      const answer = await call(broken, "POST", "/api/v1/subscribers", { key: brokenKey, json: { email: freshEmail() } })
      expectProblem(answer, "service_unavailable", "/api/v1/subscribers")
      expect(answer.text).not.toContain("ECONNREFUSED")
    } finally {
      await broken.close()
    }
  })
})

describe("request logging", () => {
  it("logs one line per request with method, path, status, duration, request id, caller and client", async () => {
    const lines: Array<Record<string, unknown>> = []
    const logged = await startHttpServer({ logger: capturingLogger(lines) })
    try {
      const { key: loggedKey, organization } = await logged.seedOrganization()
      const created = await createSubscriber(logged, loggedKey)
      const answer = await call(logged, "GET", `/api/v1/subscribers/${created.id}?unused=1`, {
        key: loggedKey,
        headers: { "x-request-id": "trace-42", "user-agent": "roster-test/1.0" }
      })
      expect(answer.status).toBe(200)
      const line = lines.find((l) => l.request_id === "trace-42" && l.level === "info")
      expect(line).toMatchObject({
        time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
        msg: expect.stringContaining("GET /api/v1/subscribers/"),
        method: "GET",
        path: `/api/v1/subscribers/${created.id}`,
        status: 200,
        duration_ms: expect.any(Number),
        organization_id: organization.id,
        credential: expect.stringMatching(/^api_key:/),
        client_address: expect.stringMatching(/127\.0\.0\.1/),
        user_agent: "roster-test/1.0"
      })
      expect(JSON.stringify(line)).not.toContain(loggedKey)
    } finally {
      await logged.close()
    }
  })

  it("masks email addresses in logged paths and names no caller when none authenticated", async () => {
    const lines: Array<Record<string, unknown>> = []
    const logged = await startHttpServer({ logger: capturingLogger(lines) })
    try {
      const answer = await call(logged, "GET", "/api/v1/subscribers/by-email/ada%40example.com", {
        headers: { "x-request-id": "trace-43" }
      })
      expect(answer.status).toBe(401)
      const line = lines.find((l) => l.request_id === "trace-43" && l.level === "info")
      expect(line).toMatchObject({ path: "/api/v1/subscribers/by-email/***", status: 401, organization_id: null, credential: null })
      expect(JSON.stringify(lines)).not.toContain("ada")
    } finally {
      await logged.close()
    }
  })
})
