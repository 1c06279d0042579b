import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { postgresForProcesses as postgres } from "../support/servers.js"
import { callApi, run, start, startWorker } from "../support/processes.js"

/**
 * Traces of the API started as an operator starts it, sent over OTLP/HTTP to a collector that
 * OTEL_EXPORTER_OTLP_ENDPOINT names: here a plain HTTP server that keeps what it is sent.
 */

/** One span as OTLP/JSON carries it, with the resource's service name. */
interface ReceivedSpan {
  readonly service: string
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId: string | undefined
  readonly name: string
  /** 1 internal, 2 server, 3 client. */
  readonly kind: number
  readonly attributes: Readonly<Record<string, unknown>>
}

interface OtlpValue {
  readonly stringValue?: string
  readonly intValue?: string | number
  readonly boolValue?: boolean
  readonly doubleValue?: number
}
interface OtlpAttribute {
  readonly key: string
  readonly value: OtlpValue
}
interface OtlpTraces {
  readonly resourceSpans: ReadonlyArray<{
    readonly resource: { readonly attributes: ReadonlyArray<OtlpAttribute> }
    readonly scopeSpans: ReadonlyArray<{
      readonly spans: ReadonlyArray<{
        readonly traceId: string
        readonly spanId: string
        readonly parentSpanId?: string
        readonly name: string
        readonly kind: number
        readonly attributes: ReadonlyArray<OtlpAttribute>
      }>
    }>
  }>
}

const attributesOf = (attributes: ReadonlyArray<OtlpAttribute>): Record<string, unknown> =>
  Object.fromEntries(attributes.map(({ key, value }) =>
    [key, value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue]))

/** A collector on 127.0.0.1: every request it gets, and the spans of those to `POST /v1/traces`. */
const startCollector = async () => {
  const requests: Array<{ readonly method: string; readonly path: string; readonly contentType: string; readonly apiKey: string }> = []
  const spans: Array<ReceivedSpan> = []
  const server = http.createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      requests.push({
        method: request.method!,
        path: request.url!,
        contentType: request.headers["content-type"] ?? "",
        apiKey: String(request.headers["x-collector-key"] ?? "")
      })
      if (request.method === "POST" && request.url === "/v1/traces") {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as OtlpTraces
        for (const resourceSpan of body.resourceSpans) {
          const service = String(attributesOf(resourceSpan.resource.attributes)["service.name"])
          for (const scopeSpan of resourceSpan.scopeSpans) {
            for (const span of scopeSpan.spans) {
              spans.push({
                service,
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId,
                name: span.name,
                kind: span.kind,
                attributes: attributesOf(span.attributes)
              })
            }
          }
        }
      }
      response.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    spans,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

/** Whether `ancestor` is `span`'s parent, or its parent's, and so on. */
const descends = (spans: ReadonlyArray<ReceivedSpan>, span: ReceivedSpan, ancestor: ReceivedSpan): boolean => {
  const byId = new Map(spans.map((s) => [s.spanId, s]))
  for (let at = byId.get(span.parentSpanId ?? ""); at !== undefined; at = byId.get(at.parentSpanId ?? "")) {
    if (at.spanId === ancestor.spanId) return true
  }
  return false
}

describe.skipIf(!postgres.available)(postgres.label, () => {
  let env: Record<string, string>
  let key: string
  let collector: Awaited<ReturnType<typeof startCollector>>

  beforeAll(async () => {
    env = { DATABASE_URL: await postgres.database("tracing") }
    const created = await run("cli", ["org", "create", "--name", "Traced", "--slug", "traced", "--tier", "enterprise"], env)
    expect(created.code, created.stderr).toBe(0)
    const issued = await run("cli", ["api-key", "create", "--org", "traced", "--name", "tracing", "--scopes", "*"], env)
    expect(issued.code, issued.stderr).toBe(0)
    key = (JSON.parse(issued.stdout) as { readonly key: string }).key
    collector = await startCollector()
  }, 60_000)

  afterAll(async () => {
    await collector?.close()
  })

  it("with OTEL_EXPORTER_OTLP_ENDPOINT set, a request's trace reaches the collector: HTTP span, use case, SQL", async () => {
    collector.spans.length = 0
    const api = await start("api", { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: collector.url })
    let id: string
    try {
      const created = await callApi<{ readonly id: string }>(`${api.url}/api/v1/subscribers`, key, "POST", { email: "traced@example.com" })
      expect(created.status).toBe(201)
      id = created.body!.id
      expect((await callApi(`${api.url}/api/v1/subscribers/${id}`, key, "GET")).status).toBe(200)
      expect((await callApi(`${api.url}/api/v1/subscribers/by-email/traced@example.com?x=token`, key, "GET")).status).toBe(200)
    } finally {
      // Spans still waiting for the next batch are sent when the process stops.
      expect(await api.stop()).toBe(0)
    }
    const { spans } = collector
    expect(collector.requests.filter((r) => r.path === "/v1/traces").every((r) => r.method === "POST" && r.contentType.startsWith("application/json")))
      .toBe(true)
    expect(new Set(spans.map((s) => s.service))).toEqual(new Set(["roster-api"]))

    // Of a request, spans keep what logs keep: no email address, no query string.
    const byEmail = spans.find((s) => s.name === "http.server GET" && String(s.attributes["url.path"]).includes("by-email"))
    expect(byEmail?.attributes["url.path"]).toBe("/api/v1/subscribers/by-email/***")
    expect(String(byEmail?.attributes["url.full"])).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/subscribers\/by-email\/\*\*\*$/)
    expect(byEmail?.attributes["url.query"]).toBeUndefined()
    expect(spans.filter((s) => JSON.stringify(s.attributes).includes("traced@example.com"))).toEqual([])

    for (const [method, path, operation] of [
      ["POST", "/api/v1/subscribers", "Subscribers.create"],
      ["GET", `/api/v1/subscribers/${id}`, "Subscribers.get"]
    ] as const) {
      const request = spans.find((s) => s.name === `http.server ${method}` && s.attributes["url.path"] === path)
      expect(request, `a span of ${method} ${path} among ${spans.map((s) => s.name).join(", ")}`).toBeDefined()
      expect(request!.kind).toBe(2)
      expect(request!.attributes["http.response.status_code"]).toBe(method === "POST" ? 201 : 200)
      const useCase = spans.find((s) => s.name === operation && s.traceId === request!.traceId)
      expect(useCase, `a ${operation} span in the trace of ${method} ${path}`).toBeDefined()
      expect(descends(spans, useCase!, request!)).toBe(true)
      const queries = spans.filter((s) => s.name === "sql.execute" && s.traceId === request!.traceId && descends(spans, s, useCase!))
      expect(queries.length, `SQL spans under ${operation}`).toBeGreaterThan(0)
      for (const query of queries) {
        expect(query.kind).toBe(3)
        expect(query.attributes["db.system.name"]).toBe("postgresql")
      }
      expect(queries.map((q) => String(q.attributes["db.query.text"]))).toContainEqual(expect.stringMatching(/\bsubscribers\b/))
    }
  })

  it("OTEL_SERVICE_NAME names the service in the spans sent, and OTEL_EXPORTER_OTLP_HEADERS goes with them", async () => {
    collector.spans.length = 0
    collector.requests.length = 0
    const api = await start("api", {
      ...env,
      OTEL_EXPORTER_OTLP_ENDPOINT: `${collector.url}/`,
      OTEL_SERVICE_NAME: "newsletters-eu",
      OTEL_EXPORTER_OTLP_HEADERS: "x-collector-key=s%3Dcret"
    })
    try {
      expect((await callApi(`${api.url}/api/v1/subscribers?limit=1`, key, "GET")).status).toBe(200)
    } finally {
      expect(await api.stop()).toBe(0)
    }
    expect(collector.spans.some((s) => s.name === "Subscribers.list")).toBe(true)
    expect(new Set(collector.spans.map((s) => s.service))).toEqual(new Set(["newsletters-eu"]))
    expect(collector.requests.length).toBeGreaterThan(0)
    expect(collector.requests.map((r) => r.apiKey)).toEqual(collector.requests.map(() => "s=cret"))
  })

  it("a worker sends each batch of a job as a trace of its own, its statements in it, as roster-worker", async () => {
    collector.spans.length = 0
    const worker = await startWorker({ ...env, OTEL_EXPORTER_OTLP_ENDPOINT: collector.url })
    // Time for whole batches: one the stop interrupts may end before its first statement.
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    expect(await worker.stop()).toBe(0)
    const { spans } = collector
    expect(new Set(spans.map((s) => s.service))).toEqual(new Set(["roster-worker"]))
    const fanOuts = spans.filter((s) => s.name === "job webhook fan-out")
    expect(fanOuts.length, `batches of webhook fan-out among ${[...new Set(spans.map((s) => s.name))].join(", ")}`).toBeGreaterThan(0)
    for (const fanOut of fanOuts) expect(fanOut.parentSpanId ?? "").toBe("")
    expect(fanOuts.some((fanOut) => spans.some((s) => s.name === "sql.execute" && descends(spans, s, fanOut)))).toBe(true)
  })

  it("without OTEL_EXPORTER_OTLP_ENDPOINT nothing is sent, not even where OpenTelemetry's other variables point", async () => {
    collector.requests.length = 0
    const api = await start("api", {
      ...env,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${collector.url}/v1/traces`,
      OTEL_SERVICE_NAME: "roster-untraced"
    })
    try {
      const created = await callApi<{ readonly id: string }>(`${api.url}/api/v1/subscribers`, key, "POST", { email: "untraced@example.com" })
      expect(created.status).toBe(201)
      expect((await callApi(`${api.url}/api/v1/subscribers/${created.body!.id}`, key, "GET")).status).toBe(200)
    } finally {
      expect(await api.stop()).toBe(0)
    }
    expect(collector.requests).toEqual([])
  })

  it("a bad OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_HEADERS stops the API at start with one line naming it", async () => {
    const badEndpoint = await run("api", [], { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" })
    expect(badEndpoint.code).toBe(1)
    expect(badEndpoint.stderr).toMatch(/^roster: configuration error: OTEL_EXPORTER_OTLP_ENDPOINT: must be an absolute URL/)
    const badHeaders = await run("api", [], { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_EXPORTER_OTLP_HEADERS: "no-equals-sign" })
    expect(badHeaders.code).toBe(1)
    expect(badHeaders.stderr).toMatch(/^roster: configuration error: OTEL_EXPORTER_OTLP_HEADERS: must be name=value pairs/)
  })
})
