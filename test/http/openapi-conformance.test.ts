/**
 * The OpenAPI document states what the API does. Every answer of the HTTP suites is checked
 * against it (test/support/conformance-setup.ts); here: that check itself finds what is wrong,
 * the document is one a strict JSON Schema validator reads whole, every answer carries
 * `X-Content-Type-Options: nosniff`, a 405's `Allow` names only the methods of its path, and an
 * email address the schema allows is one the service takes.
 */
import { Ajv2020 } from "ajv/dist/2020.js"
import addFormats from "ajv-formats"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Exchange, makeConformanceChecker, type WireForm } from "../support/openapi-conformance.js"
import { documentOf } from "../support/openapi-documents.js"
import { call, startHttpServer, type TestHttpServer } from "../support/http-server.js"

const forms = ["reference", "overview"] as const

/**
 * A validator as strict as ajv gets: unknown keywords, formats and duplicate identifiers are
 * errors. The keywords OpenAPI 3.1 adds to JSON Schema are known; `idn-email` is left to the
 * `pattern` beside it (ajv-formats has no check of its own for it).
 */
const strictAjv = () => {
  const ajv = new Ajv2020({ strict: true, allErrors: true, formats: { "idn-email": true } })
  addFormats(ajv)
  ajv.addVocabulary(["discriminator", "xml", "externalDocs", "example"])
  return ajv
}

const escape = (part: string) => part.replaceAll("~", "~0").replaceAll("/", "~1")

/** Where every schema of the document stands, as JSON pointers. */
const schemaPointers = (document: ReturnType<typeof documentOf>): ReadonlyArray<string> => {
  const pointers: Array<string> = []
  const ofContent = (at: string, content: Record<string, { schema?: unknown }> | undefined) => {
    for (const [type, media] of Object.entries(content ?? {})) {
      if (media.schema !== undefined) pointers.push(`${at}/content/${escape(type)}/schema`)
    }
  }
  const ofResponse = (at: string, response: { content?: Record<string, { schema?: unknown }>; headers?: Record<string, { schema?: unknown }> }) => {
    ofContent(at, response.content)
    for (const [name, header] of Object.entries(response.headers ?? {})) {
      if (header.schema !== undefined) pointers.push(`${at}/headers/${escape(name)}/schema`)
    }
  }
  for (const name of Object.keys(document.components.schemas ?? {})) pointers.push(`/components/schemas/${escape(name)}`)
  for (const [name, response] of Object.entries(document.components.responses ?? {})) {
    ofResponse(`/components/responses/${escape(name)}`, response as never)
  }
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item as unknown as Record<string, Record<string, unknown>>)) {
      const at = `/paths/${escape(path)}/${method}`
      for (const [i, parameter] of ((operation.parameters ?? []) as Array<{ schema?: unknown }>).entries()) {
        if (parameter.schema !== undefined) pointers.push(`${at}/parameters/${i}/schema`)
      }
      ofContent(`${at}/requestBody`, (operation.requestBody as { content?: Record<string, { schema?: unknown }> } | undefined)?.content)
      for (const [status, response] of Object.entries(operation.responses as Record<string, object>)) {
        ofResponse(`${at}/responses/${escape(status)}`, response as never)
      }
    }
  }
  return pointers
}

/** Every `$id` in the document. */
const idsOf = (value: unknown): Array<string> => {
  if (Array.isArray(value)) return value.flatMap(idsOf)
  if (typeof value !== "object" || value === null) return []
  return Object.entries(value).flatMap(([key, item]) => key === "$id" && typeof item === "string" ? [item] : idsOf(item))
}

describe.each(forms)("the OpenAPI document of the %s form", (form) => {
  it("compiles whole in a strict JSON Schema validator, every schema of it, with no identifier twice", () => {
    const document = documentOf(form)
    const ids = idsOf(document)
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([])
    const ajv = strictAjv()
    const base = `https://roster.invalid/${form}.json`
    // The document under an id of its own, so that its `#/components/...` references resolve as they
    // stand; its two containers are known words there, and each schema in them is compiled on its own.
    ajv.addKeyword({ keyword: "components" }).addKeyword({ keyword: "paths" })
    ajv.addSchema({ $id: base, components: document.components, paths: document.paths })
    const pointers = schemaPointers(document)
    expect(pointers.length).toBeGreaterThan(200)
    const failures: Array<string> = []
    for (const pointer of pointers) {
      try {
        ajv.compile({ $ref: `${base}#${pointer}` })
      } catch (error) {
        failures.push(`${pointer}: ${String(error)}`)
      }
    }
    expect(failures).toEqual([])
  }, 120_000) // a deadline that only catches a hang: compiling every schema takes seconds of CPU
})

const answerOf = (
  method: string,
  url: string,
  status: number,
  headers: Record<string, string>,
  body: string
): Exchange => ({ form: "reference", method, url, status, headers: new Headers(headers), body })

const json = { "content-type": "application/json", "x-content-type-options": "nosniff" }
const problem = { "content-type": "application/problem+json", "x-content-type-options": "nosniff" }
const tagId = "01a1fcfc-0000-7000-8000-000000000000"
const tag = {
  id: tagId,
  name: "Digest",
  slug: "digest",
  description: null,
  metadata: {},
  subscriber_count: 0,
  created_at: "2025-01-01T00:00:00.000Z",
  updated_at: "2025-01-01T00:00:00.000Z"
}
const notFound = (path: string) =>
  JSON.stringify({ type: "http://localhost:3000/errors/not_found", title: "Resource Not Found", status: 404, detail: "none", instance: path })

describe("the check of answers against the document", () => {
  const checker = makeConformanceChecker("reference", documentOf("reference"))
  const problemsOf = (exchange: Exchange) => checker.check(exchange)?.problems ?? []

  it("passes an answer the document declares, and tells the operation of one it does not", () => {
    expect(checker.check(answerOf("GET", `/api/v1/tags/${tagId}?x=1`, 404, problem, notFound(`/api/v1/tags/${tagId}`))))
      .toBeUndefined()
    expect(checker.check(answerOf("GET", `/api/v1/tags/${tagId}`, 418, problem, "")))
      .toMatchObject({ method: "GET", path: `/api/v1/tags/${tagId}`, status: 418, operation: "GET /api/v1/tags/{tag_id}" })
  })

  it("names a status the operation does not declare", () => {
    expect(problemsOf(answerOf("GET", `/api/v1/tags/${tagId}`, 418, problem, "")).join()).toMatch(
      /status 418 is not declared for GET \/api\/v1\/tags\/\{tag_id\}/
    )
  })

  it("names a content type the status does not declare", () => {
    expect(problemsOf(answerOf("GET", `/api/v1/tags/${tagId}`, 404, { ...json, "content-type": "text/plain" }, "gone")).join())
      .toContain("answered Content-Type text/plain; declared: application/problem+json")
  })

  it("names what in a body breaks the declared schema", () => {
    const { name: _, ...nameless } = tag
    const found = problemsOf(answerOf("GET", `/api/v1/tags/${tagId}`, 200, json, JSON.stringify({ ...nameless, extra: 1 }))).join()
    expect(found).toContain("body does not match the declared schema")
    expect(found).toContain("must have required property 'name'")
    expect(found).toContain("(extra)")
  })

  it("names an answer without nosniff", () => {
    expect(problemsOf(answerOf("GET", "/health", 200, { "content-type": "application/json" }, JSON.stringify({ status: "healthy" }))))
      .toContain("answered without X-Content-Type-Options: nosniff")
  })

  it("wants 404 where no path matches and 405 with the path's own methods in Allow where the method does not", () => {
    expect(problemsOf(answerOf("GET", "/nowhere", 200, json, "{}")).join()).toContain("no path of the document matches")
    const methodNotAllowed = JSON.stringify({
      type: "http://localhost:3000/errors/method_not_allowed",
      title: "Method Not Allowed",
      status: 405,
      detail: "PATCH is not allowed here",
      instance: "/api/v1/subscribers/imports"
    })
    const wrongAllow = answerOf("PATCH", "/api/v1/subscribers/imports", 405, { ...problem, allow: "DELETE, GET, POST, PUT" }, methodNotAllowed)
    expect(problemsOf(wrongAllow).join()).toContain(`Allow is "DELETE, GET, POST, PUT", the document has GET, POST`)
    expect(problemsOf({ ...wrongAllow, headers: new Headers({ ...problem, allow: "GET, POST" }) })).toEqual([])
  })
})

describe.each(forms)("answers of the %s form", (form: WireForm) => {
  let server: TestHttpServer
  let key: string
  const prefix = form === "reference" ? "/api/v1" : "/v1"
  beforeAll(async () => {
    server = await startHttpServer({ form })
    ;({ key } = await server.seedOrganization())
  })
  afterAll(() => server.close())

  it("carry X-Content-Type-Options: nosniff, whatever answers them", async () => {
    const created = await call(server, "POST", `${prefix}/subscribers`, { key, json: { email: `nosniff-${Date.now()}@example.com` } })
    const id = form === "reference" ? created.body.id : created.body.data.id
    const answers = [
      created,
      await call(server, "GET", `${prefix}/subscribers/${id}`, { key }),
      await call(server, "GET", "/health"),
      await call(server, "GET", "/openapi.json"),
      await call(server, "GET", "/docs"),
      await call(server, "GET", "/nowhere"),
      await call(server, "OPTIONS", `${prefix}/subscribers/imports`, { key }),
      await call(server, "POST", `${prefix}/tags`, { key, body: "{}", headers: { "content-type": "text/plain" } }),
      await call(server, "GET", `${prefix}/tags`),
      await call(server, "GET", "/unsubscribe?token=broken")
    ]
    expect(answers.map((a) => a.status)).toEqual([201, 200, 200, 200, 200, 404, 405, 415, 401, 401])
    for (const answer of answers) expect(answer.headers.get("x-content-type-options")).toBe("nosniff")
  })

  it("answer 405 with Allow naming only the methods of the path's own template", async () => {
    // A method no subscriber route has (the overview form changes a subscriber with PATCH).
    const imports = await call(server, form === "reference" ? "PATCH" : "PUT", `${prefix}/subscribers/imports`, { key })
    expect(imports.status).toBe(405)
    expect(imports.headers.get("allow")).toBe("GET, POST")
    // The router ends a path at `;` as at `?`: this is the list of webhooks, not one webhook.
    const webhooks = await call(server, "DELETE", `${prefix}/webhooks;jsessionid=1`, { key })
    expect(webhooks.status).toBe(405)
    expect(webhooks.headers.get("allow")).toBe("GET, POST")
  })

  it("take every email address the schema allows, and refuse with 400 every one it does not", async () => {
    const document = (await call(server, "GET", "/openapi.json")).body
    const emailSchema = document.components.schemas.CreateSubscriberRequest.properties.email
    const allowed = strictAjv().compile(emailSchema)
    const unique = `${Date.now().toString(36)}`
    const candidates = [
      `plain-${unique}@example.com`,
      `o'brien+tag-${unique}@example.co.uk`,
      `ünïcödé-${unique}@exämple.com`,
      `x${unique}@xn--bcher-kva.de`,
      `a-${unique}@b`,
      `a-${unique}@[10.0.0.1]`,
      `"a ${unique}"@example.com`,
      `.a-${unique}@example.com`,
      `a..${unique}@example.com`,
      `a-${unique}@example.123`,
      `a-${unique}@-example.com`,
      `a-${unique}@@example.com`,
      `${"x".repeat(65)}@example.com`
    ]
    const verdicts = []
    for (const email of candidates) {
      const answer = await call(server, "POST", `${prefix}/subscribers`, { key, json: { email } })
      verdicts.push({ email, schema: allowed(email), taken: answer.status === 201, status: answer.status })
    }
    expect(verdicts.filter((v) => v.schema !== v.taken)).toEqual([])
    expect(verdicts.filter((v) => !v.taken).every((v) => v.status === 400)).toBe(true)
    expect(verdicts.filter((v) => v.taken).length).toBe(4)
  })
})
