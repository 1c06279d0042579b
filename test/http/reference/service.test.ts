import { CacheHealth, DatabaseHealth } from "@roster/application"
import { Effect, Layer } from "effect"
import { request as httpRequest } from "node:http"
import { brotliDecompressSync, gunzipSync } from "node:zlib"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { errorCatalog, errorCodes } from "../../../adapters/http/index.js"
import type { OpenApiDocument } from "../../../adapters/http/shared/openapi-model.js"
import { call, startHttpServer, type TestHttpServer } from "../../support/http-server.js"
import { createSubscriber, defaultErrorsBase, expectProblem } from "../helpers.js"

let server: TestHttpServer
beforeAll(async () => {
  server = await startHttpServer()
})
afterAll(() => server.close())

describe("GET /health", () => {
  it("answers 200 healthy with the version, without credentials", async () => {
    const answer = await call(server, "GET", "/health")
    expect(answer.status).toBe(200)
    expect(answer.body).toEqual({ status: "healthy", version: expect.stringMatching(/^\d+\.\d+\.\d+/) })
  })
})

describe("idle connections", () => {
  /** The Keep-Alive header of an answer to a request that asks to keep its connection. */
  const keepAliveOf = (path: string) =>
    new Promise<string | undefined>((resolve, reject) => {
      const url = new URL(path, server.baseUrl)
      const asked = httpRequest(url, { headers: { connection: "keep-alive" }, agent: false }, (answer) => {
        answer.resume()
        answer.on("end", () => {
          const header = answer.headers["keep-alive"]
          resolve(Array.isArray(header) ? header.join(", ") : header)
          asked.destroy()
        })
      })
      asked.on("error", reject)
      asked.end()
    })

  it("are kept open 65 s, past a proxy's 60, through the HttpApi and the direct lane alike", async () => {
    expect(await keepAliveOf("/health")).toBe("timeout=65")
    expect(await keepAliveOf("/api/v1/subscribers/0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10")).toBe("timeout=65")
  })
})

describe("GET /ready", () => {
  it("answers 200 ready when the database and the cache answer", async () => {
    const answer = await call(server, "GET", "/ready")
    expect(answer.status).toBe(200)
    expect(answer.body).toEqual({ status: "ready", checks: { database: "ok", cache: "ok" } })
  })

  const failing = [
    ["database", Layer.succeed(DatabaseHealth, { name: "database", check: Effect.fail("connection refused") })],
    ["cache", Layer.succeed(CacheHealth, { name: "cache", check: Effect.die(new Error("socket closed")) })]
  ] as const
  for (const [check, adapters] of failing) {
    it(`answers 503 unavailable with ${check}: error when the ${check} fails`, async () => {
      const degraded = await startHttpServer({ adapters })
      try {
        const answer = await call(degraded, "GET", "/ready")
        expect(answer.status).toBe(503)
        expect(answer.body).toEqual({
          status: "unavailable",
          checks: { database: check === "database" ? "error" : "ok", cache: check === "cache" ? "error" : "ok" }
        })
        expect((await call(degraded, "GET", "/health")).status).toBe(200)
      } finally {
        await degraded.close()
      }
    })
  }
})

describe("GET /errors/{code}", () => {
  for (const code of errorCodes) {
    it(`documents ${code} as a page and as JSON`, async () => {
      const entry = errorCatalog[code]
      const page = await call(server, "GET", `/errors/${code}`, { headers: { accept: "text/html,application/xhtml+xml" } })
      expect(page.status).toBe(200)
      expect(page.headers.get("content-type")).toMatch(/^text\/html/)
      expect(page.text).toContain(`<h1>${entry.title}</h1>`)
      expect(page.text).toContain(String(entry.status))
      expect(page.text).toContain("What to do")

      const json = await call(server, "GET", `/errors/${code}`, { headers: { accept: "application/json" } })
      expect(json.status).toBe(200)
      expect(json.body).toEqual({
        code,
        type: `${defaultErrorsBase}/${code}`,
        status: entry.status,
        title: entry.title,
        meaning: entry.meaning,
        remedy: entry.remedy
      })
    })
  }

  it("answers 404 not_found for a code it does not know", async () => {
    expectProblem(await call(server, "GET", "/errors/teapot"), "not_found", "/errors/teapot")
  })
})

describe("GET /openapi.json", () => {
  let spec: OpenApiDocument
  beforeAll(async () => {
    const answer = await call(server, "GET", "/openapi.json")
    expect(answer.status).toBe(200)
    spec = answer.body
  })

  const operations = () =>
    Object.entries(spec.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({ path, method: method.toUpperCase(), operation }))
    )

  it("is OpenAPI 3.1 and lists every endpoint that runs", () => {
    expect(spec.openapi).toBe("3.1.0")
    expect(operations().map(({ method, path }) => `${method} ${path}`).sort()).toEqual([
      "DELETE /api/v1/admin/organizations/{organization_id}",
      "DELETE /api/v1/admin/organizations/{organization_id}/members/{user_id}",
      "DELETE /api/v1/api-keys/{api_key_id}",
      "DELETE /api/v1/email-triggers/{trigger_id}",
      "DELETE /api/v1/forms/{form_id}",
      "DELETE /api/v1/segments/{segment_id}",
      "DELETE /api/v1/sequences/{sequence_id}",
      "DELETE /api/v1/sequences/{sequence_id}/enrollments/{subscriber_id}",
      "DELETE /api/v1/settings/email/domain",
      "DELETE /api/v1/subscribers/{subscriber_id}",
      "DELETE /api/v1/subscribers/{subscriber_id}/notes/{note_id}",
      "DELETE /api/v1/subscribers/{subscriber_id}/tags/{tag_id}",
      "DELETE /api/v1/subscribers/{subscriber_id}/token",
      "DELETE /api/v1/tags/{tag_id}",
      "DELETE /api/v1/templates/{template_id}",
      "DELETE /api/v1/webhooks/{webhook_id}",
      "DELETE /preference-center/account",
      "DELETE /preference-center/tags/{tag_id}",
      "GET /",
      "GET /api/v1/admin/organizations",
      "GET /api/v1/admin/organizations/{organization_id}",
      "GET /api/v1/admin/organizations/{organization_id}/members",
      "GET /api/v1/admin/users",
      "GET /api/v1/admin/users/{user_id}",
      "GET /api/v1/api-keys",
      "GET /api/v1/api-keys/scopes",
      "GET /api/v1/api-keys/{api_key_id}",
      "GET /api/v1/billing/subscription",
      "GET /api/v1/campaigns",
      "GET /api/v1/campaigns/{campaign_id}",
      "GET /api/v1/email-triggers",
      "GET /api/v1/email-triggers/{trigger_id}",
      "GET /api/v1/emails",
      "GET /api/v1/emails/{email_id}",
      "GET /api/v1/forms",
      "GET /api/v1/forms/{form_id}",
      "GET /api/v1/forms/{form_id}/embed",
      "GET /api/v1/segments",
      "GET /api/v1/segments/{segment_id}",
      "GET /api/v1/sequences",
      "GET /api/v1/sequences/{sequence_id}",
      "GET /api/v1/sequences/{sequence_id}/enrollments",
      "GET /api/v1/sequences/{sequence_id}/figures",
      "GET /api/v1/settings/email",
      "GET /api/v1/settings/email/domain",
      "GET /api/v1/settings/organization",
      "GET /api/v1/subscribers",
      "GET /api/v1/subscribers/by-email/{email}",
      "GET /api/v1/subscribers/imports",
      "GET /api/v1/subscribers/imports/{import_id}",
      "GET /api/v1/subscribers/{subscriber_id}",
      "GET /api/v1/subscribers/{subscriber_id}/consents",
      "GET /api/v1/subscribers/{subscriber_id}/notes",
      "GET /api/v1/subscribers/{subscriber_id}/notes/{note_id}",
      "GET /api/v1/subscribers/{subscriber_id}/tags",
      "GET /api/v1/tags",
      "GET /api/v1/tags/by-name/{name}",
      "GET /api/v1/tags/{tag_id}",
      "GET /api/v1/templates",
      "GET /api/v1/templates/{template_id}",
      "GET /api/v1/webhooks",
      "GET /api/v1/webhooks/event-types",
      "GET /api/v1/webhooks/stats/global",
      "GET /api/v1/webhooks/{webhook_id}",
      "GET /api/v1/webhooks/{webhook_id}/deliveries",
      "GET /api/v1/webhooks/{webhook_id}/deliveries/{delivery_id}",
      "GET /api/v1/webhooks/{webhook_id}/stats",
      "GET /auth/organizations",
      "GET /auth/sign-in",
      "GET /auth/verify",
      "GET /errors/{code}",
      "GET /f/confirm",
      "GET /f/{form_id}",
      "GET /health",
      "GET /preference-center",
      "GET /preference-center/data-export",
      "GET /ready",
      "GET /unsubscribe",
      "OPTIONS /f/{form_id}",
      "PATCH /api/v1/admin/organizations/{organization_id}",
      "PATCH /api/v1/api-keys/{api_key_id}",
      "POST /api/v1/admin/organizations/{organization_id}/members",
      "POST /api/v1/api-keys",
      "POST /api/v1/api-keys/{api_key_id}/rotate",
      "POST /api/v1/billing/create-checkout-session",
      "POST /api/v1/billing/customer-portal",
      "POST /api/v1/billing/sync-subscription",
      "POST /api/v1/campaigns",
      "POST /api/v1/campaigns/{campaign_id}/cancel",
      "POST /api/v1/campaigns/{campaign_id}/count-recipients",
      "POST /api/v1/campaigns/{campaign_id}/duplicate",
      "POST /api/v1/campaigns/{campaign_id}/retry",
      "POST /api/v1/campaigns/{campaign_id}/send",
      "POST /api/v1/email-triggers",
      "POST /api/v1/emails/send",
      "POST /api/v1/forms",
      "POST /api/v1/segments",
      "POST /api/v1/segments/preview",
      "POST /api/v1/segments/{segment_id}/preview",
      "POST /api/v1/sequences",
      "POST /api/v1/sequences/{sequence_id}/activate",
      "POST /api/v1/sequences/{sequence_id}/enrollments",
      "POST /api/v1/sequences/{sequence_id}/pause",
      "POST /api/v1/settings/email/domain",
      "POST /api/v1/subscribers",
      "POST /api/v1/subscribers/imports",
      "POST /api/v1/subscribers/{subscriber_id}/notes",
      "POST /api/v1/subscribers/{subscriber_id}/tags",
      "POST /api/v1/subscribers/{subscriber_id}/token",
      "POST /api/v1/tags",
      "POST /api/v1/templates",
      "POST /api/v1/templates/{template_id}/preview",
      "POST /api/v1/webhooks",
      "POST /api/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/retry",
      "POST /api/v1/webhooks/{webhook_id}/regenerate-secret",
      "POST /api/v1/webhooks/{webhook_id}/test",
      "POST /auth/logout",
      "POST /auth/magic-link",
      "POST /auth/organizations",
      "POST /f/confirm",
      "POST /f/{form_id}",
      "POST /preference-center",
      "POST /unsubscribe",
      "POST /webhooks/payment-events",
      "POST /webhooks/resend-events",
      "PUT /api/v1/campaigns/{campaign_id}",
      "PUT /api/v1/email-triggers/{trigger_id}",
      "PUT /api/v1/forms/{form_id}",
      "PUT /api/v1/segments/{segment_id}",
      "PUT /api/v1/sequences/{sequence_id}",
      "PUT /api/v1/settings/email",
      "PUT /api/v1/settings/organization",
      "PUT /api/v1/subscribers/{subscriber_id}",
      "PUT /api/v1/subscribers/{subscriber_id}/notes/{note_id}",
      "PUT /api/v1/tags/{tag_id}",
      "PUT /api/v1/templates/{template_id}",
      "PUT /api/v1/webhooks/{webhook_id}",
      "PUT /preference-center/tags/{tag_id}"
    ])
  })

  it("describes every operation", () => {
    for (const { method, operation, path } of operations()) {
      expect(operation.summary, `${method} ${path}`).toEqual(expect.any(String))
      expect(operation.description, `${method} ${path}`).toEqual(expect.any(String))
    }
  })

  it("documents every error answer as application/problem+json (or, for the subscribers' pages, a page), and keeps no framework error schema", () => {
    for (const { method, operation, path } of operations()) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) < 400 || (path === "/ready" && status === "503")) continue
        const types = Object.keys(response.content ?? {}).filter((type) => type !== "text/html")
        if (types.length === 0 && response.content?.["text/html"] !== undefined) continue
        expect(types, `${method} ${path} ${status}`).toEqual(["application/problem+json"])
      }
    }
    const text = JSON.stringify(spec)
    expect(text).not.toContain("HttpApiDecodeError")
    expect(Object.keys(spec.components.schemas)).not.toContain("Issue")
  })

  it("documents the status codes of each kind of operation", () => {
    const statuses = (method: string, path: string) => Object.keys(spec.paths[path]![method]!.responses).sort()
    expect(statuses("post", "/api/v1/subscribers")).toEqual([
      "201", "202", "400", "401", "402", "403", "409", "413", "415", "422", "429", "500", "503"
    ])
    expect(statuses("put", "/api/v1/subscribers/{subscriber_id}")).toEqual([
      "200", "400", "401", "403", "404", "409", "413", "415", "429", "500", "503"
    ])
    expect(statuses("delete", "/api/v1/tags/{tag_id}")).toEqual(["204", "400", "401", "403", "404", "413", "415", "429", "500", "503"])
    expect(statuses("get", "/health")).toEqual(["200", "500"])
    expect(statuses("get", "/ready")).toEqual(["200", "500", "503"])
  })

  it("declares the X-API-Key and session schemes on every /api/v1 operation, the session alone on signed-in /auth routes", () => {
    expect(spec.components.securitySchemes.apiKey).toMatchObject({ type: "apiKey", in: "header", name: "X-API-Key" })
    expect(spec.components.securitySchemes.session).toMatchObject({ type: "apiKey", in: "cookie", name: "svc_session" })
    const sessionOnly = ["GET /auth/organizations", "POST /auth/organizations", "POST /auth/logout"]
    for (const { method, operation, path } of operations()) {
      const expected = path.startsWith("/api/v1/")
        ? [{ apiKey: [] }, { session: [] }]
        : sessionOnly.includes(`${method} ${path}`)
        ? [{ session: [] }]
        : []
      expect(operation.security, `${method} ${path}`).toEqual(expected)
    }
  })

  it("documents X-Organization-Id on every /api/v1 operation and on no other", () => {
    for (const { method, operation, path } of operations()) {
      const headers = (operation.parameters ?? []) as ReadonlyArray<{ name: string; in: string; required: boolean }>
      const organization = headers.filter((p) => p.in === "header" && p.name === "X-Organization-Id")
      expect(organization, `${method} ${path}`).toEqual(
        path.startsWith("/api/v1/") ? [expect.objectContaining({ required: false })] : []
      )
    }
  })

  it("documents the statuses of the auth routes, Retry-After on 429 and the session cookie on verify", () => {
    const statuses = (method: string, path: string) => Object.keys(spec.paths[path]![method]!.responses).sort()
    expect(statuses("post", "/auth/magic-link")).toEqual(["200", "400", "413", "415", "429", "500", "503"])
    expect(statuses("get", "/auth/verify")).toEqual(["200", "400", "401", "500", "503"])
    expect(statuses("post", "/auth/organizations")).toEqual(["200", "400", "401", "403", "409", "413", "415", "500", "503"])
    expect(statuses("post", "/auth/logout")).toEqual(["200", "400", "401", "403", "413", "415", "500", "503"])
    expect(Object.keys(spec.paths["/auth/magic-link"]!.post!.responses["429"]!.headers ?? {})).toEqual(["Retry-After"])
    expect(Object.keys(spec.paths["/auth/verify"]!.get!.responses["200"]!.headers ?? {})).toEqual(["Set-Cookie"])
    expect(Object.keys(spec.paths["/auth/sign-in"]!.get!.responses["200"]!.content ?? {})).toEqual(["text/html"])
    const verify401 = spec.paths["/auth/verify"]!.get!.responses["401"]!
    for (const code of ["magic_link_expired", "magic_link_already_used", "invalid_token"]) {
      expect(verify401.description).toContain(`\`${code}\``)
    }
  })

  it("documents the statuses of the API key routes", () => {
    const statuses = (method: string, path: string) => Object.keys(spec.paths[path]![method]!.responses).sort()
    expect(statuses("post", "/api/v1/api-keys")).toEqual([
      "201", "400", "401", "403", "409", "413", "415", "422", "429", "500", "503"
    ])
    expect(statuses("get", "/api/v1/api-keys/scopes")).toEqual(["200", "400", "401", "403", "429", "500", "503"])
    expect(statuses("delete", "/api/v1/api-keys/{api_key_id}")).toEqual(["204", "400", "401", "403", "404", "413", "415", "429", "500", "503"])
    expect(statuses("post", "/api/v1/api-keys/{api_key_id}/rotate")).toEqual([
      "200", "400", "401", "403", "404", "409", "413", "415", "422", "429", "500", "503"
    ])
  })

  it("documents the statuses of the platform-admin routes", () => {
    const statuses = (method: string, path: string) => Object.keys(spec.paths[path]![method]!.responses).sort()
    const organization = "/api/v1/admin/organizations/{organization_id}"
    expect(statuses("get", "/api/v1/admin/organizations")).toEqual(["200", "400", "401", "403", "429", "500", "503"])
    expect(statuses("get", organization)).toEqual(["200", "400", "401", "403", "404", "429", "500", "503"])
    expect(statuses("patch", organization)).toEqual([
      "200", "400", "401", "403", "404", "413", "415", "429", "500", "503"
    ])
    expect(statuses("delete", organization)).toEqual(["204", "400", "401", "403", "404", "413", "415", "429", "500", "503"])
    expect(statuses("post", `${organization}/members`)).toEqual([
      "201", "400", "401", "403", "404", "409", "413", "415", "422", "429", "500", "503"
    ])
    expect(statuses("delete", `${organization}/members/{user_id}`)).toEqual(["204", "400", "401", "403", "404", "413", "415", "429", "500", "503"])
    expect(statuses("get", "/api/v1/admin/users/{user_id}")).toEqual(["200", "400", "401", "403", "404", "429", "500", "503"])
  })

  it("documents X-Total-Count and Link on lists", () => {
    for (const path of ["/api/v1/subscribers", "/api/v1/tags", "/api/v1/admin/organizations", "/api/v1/admin/users"]) {
      expect(Object.keys(spec.paths[path]!.get!.responses["200"]!.headers ?? {})).toEqual(
        expect.arrayContaining(["X-Total-Count", "Link"])
      )
    }
  })

  it("documents the rate-limit headers on every answer of /api/v1 and on no other, and Retry-After on its 429s", () => {
    const rateLimitHeaders = ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"]
    expect(Object.keys(spec.components.headers ?? {})).toEqual(rateLimitHeaders)
    for (const { method, operation, path } of operations()) {
      for (const [status, response] of Object.entries(operation.responses)) {
        const headers = Object.keys(response.headers ?? {})
        if (path.startsWith("/api/v1/")) {
          expect(headers, `${method} ${path} ${status}`).toEqual(expect.arrayContaining(rateLimitHeaders))
          expect(response.headers!["X-RateLimit-Reset"]).toEqual({ $ref: "#/components/headers/X-RateLimit-Reset" })
        } else {
          expect(headers.filter((h) => h.startsWith("X-RateLimit")), `${method} ${path} ${status}`).toEqual([])
        }
      }
      if (path.startsWith("/api/v1/")) {
        expect(Object.keys(operation.responses["429"]?.headers ?? {}), `${method} ${path}`).toContain("Retry-After")
      }
    }
  })

  it("documents Idempotency-Key on every POST of /api/v1 but the CSV upload, and on no other operation, with its answers", () => {
    for (const { method, operation, path } of operations()) {
      const parameters = (operation.parameters ?? []) as ReadonlyArray<{ name: string; in: string; required: boolean }>
      const idempotencyKey = parameters.filter((p) => p.in === "header" && p.name === "Idempotency-Key")
      // The upload streams its file, which is not kept to compare a repeat with.
      const takesKey = method === "POST" && path.startsWith("/api/v1/") && path !== "/api/v1/subscribers/imports"
      expect(idempotencyKey, `${method} ${path}`).toEqual(takesKey ? [expect.objectContaining({ required: false })] : [])
      const replayed = Object.entries(operation.responses)
        .filter(([, response]) => Object.keys(response.headers ?? {}).includes("Idempotent-Replayed"))
        .map(([status]) => status)
      if (!takesKey) {
        expect(replayed, `${method} ${path}`).toEqual([])
        continue
      }
      const success = Object.keys(operation.responses).find((status) => status.startsWith("2"))!
      expect(replayed, `${method} ${path}`).toContain(success)
      expect(replayed, `${method} ${path}`).not.toContain("400")
      expect(replayed, `${method} ${path}`).not.toContain("429")
      expect(operation.responses["422"]?.content?.["application/problem+json"], `${method} ${path}`).toBeDefined()
      expect(operation.responses["409"]?.description, `${method} ${path}`).toContain("`idempotency_request_in_progress`")
    }
  })

  it("documents the page and the JSON form of an error code", () => {
    expect(Object.keys(spec.paths["/errors/{code}"]!.get!.responses["200"]!.content ?? {})).toEqual([
      "text/html",
      "application/json"
    ])
  })
})

/** URLs of scripts, stylesheets and CSS imports that a page would load from elsewhere. */
const externalAssets = (html: string): Array<string> => [
  ...html.matchAll(/<script[^>]*\ssrc=["']?(https?:)?\/\/[^"'\s>]*/gi),
  ...html.matchAll(/<link[^>]*\shref=["']?(https?:)?\/\/[^"'\s>]*/gi),
  ...html.matchAll(/@import\s+(url\()?["']?(https?:)?\/\/[^"')\s]*/gi)
].map((match) => match[0])

describe("documentation pages", () => {
  it("serves Swagger UI at /docs from the service's own bundle and stylesheet", async () => {
    const answer = await call(server, "GET", "/docs")
    expect(answer.status).toBe(200)
    expect(answer.headers.get("content-type")).toMatch(/^text\/html/)
    expect(answer.text).toContain("SwaggerUIBundle")
    expect(answer.text).toContain("Roster API")
    expect(answer.text).toContain("url: \"/openapi.json\"")
    expect(externalAssets(answer.text)).toEqual([])
    const scripts = [...answer.text.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1]!)
    expect(scripts).toEqual(["/docs/swagger-ui-bundle.js"])
    const stylesheets = [...answer.text.matchAll(/<link[^>]*\srel="stylesheet"[^>]*\shref="([^"]+)"/g)].map((m) => m[1]!)
    expect(stylesheets).toEqual(["/docs/swagger-ui.css"])
    const bundle = await call(server, "GET", scripts[0]!)
    expect(bundle.status).toBe(200)
    expect(bundle.headers.get("content-type")).toMatch(/^application\/javascript/)
    expect(bundle.headers.get("cache-control")).toBe("public, max-age=86400")
    expect(bundle.text.length).toBeGreaterThan(100_000)
    const stylesheet = await call(server, "GET", stylesheets[0]!)
    expect(stylesheet.status).toBe(200)
    expect(stylesheet.headers.get("content-type")).toMatch(/^text\/css/)
    expect(stylesheet.headers.get("cache-control")).toBe("public, max-age=86400")
    expect(stylesheet.text.length).toBeGreaterThan(10_000)
  })

  it("serves Redoc at /redoc from the service's own bundle", async () => {
    const answer = await call(server, "GET", "/redoc")
    expect(answer.status).toBe(200)
    expect(answer.headers.get("content-type")).toMatch(/^text\/html/)
    expect(externalAssets(answer.text)).toEqual([])
    const scripts = [...answer.text.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1]!)
    expect(scripts).toEqual(["/redoc/redoc.standalone.js"])
    expect(answer.text).toContain("spec-url=\"/openapi.json\"")
    const bundle = await call(server, "GET", scripts[0]!)
    expect(bundle.status).toBe(200)
    expect(bundle.headers.get("content-type")).toMatch(/^application\/javascript/)
    expect(bundle.text.length).toBeGreaterThan(100_000)
  })
})

/** An answer exactly as it came over the wire, its body not decoded. */
const raw = (path: string, headers: Record<string, string> = {}, method = "GET") =>
  new Promise<{ status: number; headers: Record<string, string | Array<string> | undefined>; body: Buffer }>((resolve, reject) => {
    const url = new URL(path, server.baseUrl)
    const sent = httpRequest(url, { method, headers }, (answer) => {
      const chunks: Array<Buffer> = []
      answer.on("data", (chunk: Buffer) => chunks.push(chunk))
      answer.on("end", () => resolve({ status: answer.statusCode!, headers: answer.headers, body: Buffer.concat(chunks) }))
      answer.on("error", reject)
    })
    sent.on("error", reject)
    sent.end()
  })

describe("compression", () => {
  it("sends the OpenAPI document with Brotli or gzip as the client accepts, and as it is otherwise", async () => {
    const plain = await raw("/openapi.json")
    expect(plain.headers["content-encoding"]).toBeUndefined()
    expect(plain.headers["vary"]).toMatch(/accept-encoding/i)
    const document = JSON.parse(plain.body.toString("utf8"))

    const br = await raw("/openapi.json", { "accept-encoding": "gzip, deflate, br" })
    expect(br.headers["content-encoding"]).toBe("br")
    expect(br.body.length).toBeLessThan(plain.body.length / 4)
    expect(JSON.parse(brotliDecompressSync(br.body).toString("utf8"))).toEqual(document)

    const gz = await raw("/openapi.json", { "accept-encoding": "gzip" })
    expect(gz.headers["content-encoding"]).toBe("gzip")
    expect(JSON.parse(gunzipSync(gz.body).toString("utf8"))).toEqual(document)

    const refused = await raw("/openapi.json", { "accept-encoding": "br;q=0, gzip;q=0, identity" })
    expect(refused.headers["content-encoding"]).toBeUndefined()
    expect(refused.body.equals(plain.body)).toBe(true)
  })

  it("compresses the docs' bundles and stylesheet", async () => {
    for (const path of ["/docs/swagger-ui-bundle.js", "/docs/swagger-ui.css", "/redoc/redoc.standalone.js"]) {
      const answer = await raw(path, { "accept-encoding": "br" })
      expect(answer.status, path).toBe(200)
      expect(answer.headers["content-encoding"], path).toBe("br")
      expect(brotliDecompressSync(answer.body).length, path).toBeGreaterThan(answer.body.length * 2)
    }
  })

  it("compresses a long JSON answer of the API", async () => {
    const { key } = await server.seedOrganization()
    for (let i = 0; i < 30; i++) await createSubscriber(server, key)
    const answer = await raw("/api/v1/subscribers?limit=100", { "x-api-key": key, "accept-encoding": "gzip" })
    expect(answer.status).toBe(200)
    expect(answer.headers["content-encoding"]).toBe("gzip")
    expect(JSON.parse(gunzipSync(answer.body).toString("utf8")).items).toHaveLength(30)
  })

  it("leaves small answers as they are", async () => {
    const health = await raw("/health", { "accept-encoding": "br, gzip" })
    expect(health.headers["content-encoding"]).toBeUndefined()
    expect(JSON.parse(health.body.toString("utf8")).status).toBe("healthy")
  })
})

describe("servers in the OpenAPI document", () => {
  it("names the deployment's public address", async () => {
    const deployed = await startHttpServer({ config: { PUBLIC_BASE_URL: "https://lists.example.com" } })
    try {
      const answer = await call(deployed, "GET", "/openapi.json")
      expect(answer.body.servers).toEqual([{ url: "https://lists.example.com", description: "this deployment" }])
    } finally {
      await deployed.close()
    }
  })
})
