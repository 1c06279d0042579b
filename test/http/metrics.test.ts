import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startHttpServer, type TestHttpServer } from "../support/http-server.js"
import { createSubscriber } from "./helpers.js"

/** `GET /metrics`: Prometheus' text format, for the holder of METRICS_TOKEN only, in both forms. */

const token = "metrics-token-0123456789"

describe.each(["reference", "overview"] as const)("GET /metrics in the %s form", (form) => {
  let server: TestHttpServer
  beforeAll(async () => {
    server = await startHttpServer({ form, config: { METRICS_TOKEN: token } })
  })
  afterAll(() => server.close())

  it("is refused without the token, or with another one, naming the scheme", async () => {
    const attempts: Array<Record<string, string>> = [{}, { authorization: "Bearer not-the-token-0000000" }, { authorization: `Basic ${token}` }]
    for (const headers of attempts) {
      const answer = await call(server, "GET", "/metrics", { headers })
      expect(answer.status).toBe(401)
      expect(answer.headers.get("www-authenticate")).toBe("Bearer realm=\"metrics\"")
      expect(answer.text).not.toContain("roster_http_requests_total")
    }
  })

  it("counts requests by route template and status, times them, and tells the work waiting and the process's figures", async () => {
    const { key } = await server.seedOrganization()
    const base = form === "reference" ? "/api/v1" : "/v1"
    const created = await createSubscriber(server, key)
    const id = "id" in created ? created.id : (created as { data: { id: string } }).data.id
    await call(server, "GET", `${base}/subscribers/${id}`, { key })
    await call(server, "GET", `${base}/subscribers/${crypto.randomUUID()}`, { key })
    await call(server, "GET", "/nowhere/at/all")
    await call(server, "GET", "/app/sign-in")
    // An import uploaded, which no worker runs beside the test server: it waits, due.
    const uploaded = await call(server, "POST", `${base}/subscribers/imports`, {
      key,
      body: "email\nada@example.com\n",
      headers: { "content-type": "text/csv" }
    })
    expect(uploaded.status, uploaded.text).toBe(202)

    const answer = await call(server, "GET", "/metrics", { headers: { authorization: `Bearer ${token}` } })
    expect(answer.status).toBe(200)
    expect(answer.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/)
    const text = answer.text
    const template = form === "reference" ? "/api/v1/subscribers/:subscriber_id" : "/v1/subscribers/:id"
    expect(text).toMatch(new RegExp(`roster_http_requests_total\\{method="GET",route="${template.replaceAll("/", "\\/")}",status="200"\\} [1-9]`))
    expect(text).toMatch(new RegExp(`roster_http_requests_total\\{method="GET",route="${template.replaceAll("/", "\\/")}",status="404"\\} [1-9]`))
    expect(text).toMatch(/roster_http_requests_total\{method="GET",route="unmatched",status="404"\} [1-9]/)
    expect(text).toMatch(/roster_http_requests_total\{method="GET",route="\/app\/\*",status="200"\} [1-9]/)
    expect(text).not.toContain(id)
    expect(text).toMatch(/roster_http_request_duration_seconds_bucket\{le="0\.005",method="GET",route=/)
    expect(text).toMatch(/roster_queue_waiting\{work="webhook_deliveries"\} \d+/)
    expect(text).toMatch(/roster_queue_lag_seconds\{work="emails"\} [\d.]+/)
    expect(text).toMatch(/roster_queue_waiting\{work="imports"\} [1-9]/)
    expect(text).toMatch(/roster_queue_due\{work="imports"\} [1-9]/)
    expect(text).toMatch(/roster_queue_lag_seconds\{work="imports"\} [\d.]+/)
    expect(text).toMatch(/roster_process_resident_memory_bytes \d+/)
  })
})

describe("without METRICS_TOKEN", () => {
  it("serves no metrics", async () => {
    const server = await startHttpServer()
    try {
      const answer = await call(server, "GET", "/metrics")
      expect(answer.status).toBe(404)
    } finally {
      await server.close()
    }
  })
})
