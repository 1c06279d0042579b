/**
 * Imports in the overview form: POST /v1/subscribers/imports (and under /api/v1) takes the CSV as
 * the body or as a form's file field and answers 202 with the import in the `data` envelope;
 * imports are followed and listed in numbered pages, and refusals come in the error envelope.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Answer, call, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../../support/http-server.js"
import { runImports } from "../../support/worker-steps.js"
import { createSubscriber, expectError, expectInvalid, freshEmail, uuidPattern } from "./helpers.js"

const MAX_BYTES = 16 * 1024

let server: TestHttpServer
beforeAll(async () => {
  server = await startHttpServer({ form: "overview", adapters: UnlimitedRateLimiterLive, config: { IMPORT_MAX_BYTES: String(MAX_BYTES) } })
})
afterAll(() => server.close())

const csv = (...lines: ReadonlyArray<string>) => lines.map((line) => `${line}\n`).join("")

const upload = (key: string, text: string, query = "", prefix = "/v1") =>
  call(server, "POST", `${prefix}/subscribers/imports${query}`, { key, body: text, headers: { "content-type": "text/csv" } })

const uploadForm = async (key: string, fields: ReadonlyArray<readonly [string, string | Blob]>): Promise<Answer> => {
  const form = new FormData()
  for (const [name, value] of fields) {
    if (typeof value === "string") form.append(name, value)
    else form.append(name, value, "list.csv")
  }
  const response = await fetch(`${server.baseUrl}/v1/subscribers/imports`, { method: "POST", headers: { "x-api-key": key }, body: form })
  const text = await response.text()
  return { status: response.status, headers: response.headers, text, body: text.length > 0 ? JSON.parse(text) : text }
}

const follow = async (key: string, queued: Answer) => {
  expect(queued.status, queued.text).toBe(202)
  await server.run(runImports)
  const answer = await call(server, "GET", queued.headers.get("location")!, { key })
  expect(answer.status, answer.text).toBe(200)
  return answer.body.data
}

describe("/v1/subscribers/imports", () => {
  it("takes the CSV as the body, answers 202 in the envelope with its Location, and reports its problem rows once run", async () => {
    const { key } = await server.seedOrganization()
    const ada = freshEmail("ada")
    const queued = await upload(key, csv("email,first_name,tags", `${ada},Ada,VIP`, "not-an-address,Bob,"), "?file_name=list.csv")
    expect(queued.status, queued.text).toBe(202)
    expect(queued.body.data).toMatchObject({ id: expect.stringMatching(uuidPattern), status: "queued", file_name: "list.csv", problems: [] })
    expect(queued.headers.get("location")).toBe(`/v1/subscribers/imports/${queued.body.data.id}`)
    const done = await follow(key, queued)
    expect(done).toMatchObject({
      status: "completed",
      counts: { rows: 2, created: 1, updated: 0, unchanged: 0, failed: 1, kept_status: 0 },
      problem_count: 1,
      problems: [{ line: 3, field: "email", problem: expect.any(String), email: null }]
    })
    const found = await call(server, "GET", `/v1/subscribers?per_page=1`, { key })
    expect(found.body.data[0]).toMatchObject({ email: ada, first_name: "Ada", tags: [{ name: "VIP" }] })
  })

  it("takes a multipart form under /api/v1 too, resubscribe honoured; its Location keeps the path it came by", async () => {
    const { key } = await server.seedOrganization()
    const left = await createSubscriber(server, key)
    expect((await call(server, "PATCH", `/v1/subscribers/${left.id}`, { key, json: { status: "unsubscribed" } })).status).toBe(200)
    const form = new FormData()
    form.append("resubscribe", "true")
    form.append("file", new Blob([csv("email", left.email)], { type: "text/csv" }), "back.csv")
    const response = await fetch(`${server.baseUrl}/api/v1/subscribers/imports`, { method: "POST", headers: { "x-api-key": key }, body: form })
    const text = await response.text()
    const queued: Answer = { status: response.status, headers: response.headers, text, body: JSON.parse(text) }
    expect(queued.headers.get("location")).toBe(`/api/v1/subscribers/imports/${queued.body.data.id}`)
    expect(queued.body.data).toMatchObject({ file_name: "back.csv", options: { resubscribe: true } })
    expect((await follow(key, queued)).counts).toMatchObject({ rows: 1, updated: 1 })
    expect((await call(server, "GET", `/v1/subscribers/${left.id}`, { key })).body.data.status).toBe("active")
  })

  it("lists imports newest first in numbered pages, without their problems", async () => {
    const { key } = await server.seedOrganization()
    const ids: Array<string> = []
    for (let i = 0; i < 3; i++) ids.push((await upload(key, csv("email", freshEmail()))).body.data.id)
    const page = await call(server, "GET", "/v1/subscribers/imports?per_page=2&page=2", { key })
    expect(page.status, page.text).toBe(200)
    expect(page.body.meta).toEqual({ total: 3, page: 2, per_page: 2, total_pages: 2 })
    expect(page.body.data.map((item: { id: string }) => item.id)).toEqual([ids[0]])
    expect(page.body.data[0]).not.toHaveProperty("problems")
    expectInvalid(await call(server, "GET", "/v1/subscribers/imports?per_page=500", { key }), ["per_page"])
  })

  it("answers refusals in the error envelope: 413 over the limit, 415, 400 naming the field, 403, 404", async () => {
    const [{ key, organization }, other] = [await server.seedOrganization(), await server.seedOrganization()]
    const tooLarge = await upload(key, csv("email", ...Array.from({ length: 1000 }, (_, i) => `reader${i}@example.com`)))
    expectError(tooLarge, "payload_too_large")
    expect(tooLarge.body.error.message).toContain(String(MAX_BYTES))
    expectError(await call(server, "POST", "/v1/subscribers/imports", { key, json: { email: freshEmail() } }), "unsupported_media_type")
    expectInvalid(await upload(key, csv("email", freshEmail()), "?encoding=klingon"), ["encoding"])
    expectInvalid(await upload(key, ""), ["body"])
    expectInvalid(await uploadForm(key, [["encoding", "utf-8"]]), ["file"])
    const reader = await server.createApiKey(organization, ["subscribers:read"])
    expectError(await upload(reader, csv("email", freshEmail())), "forbidden")

    const queued = await upload(key, csv("email", freshEmail()))
    expectError(await call(server, "GET", `/v1/subscribers/imports/${queued.body.data.id}`, { key: other.key }), "forbidden")
    expectError(await call(server, "GET", "/v1/subscribers/imports/0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10", { key }), "not_found")
    expect((await call(server, "GET", "/v1/subscribers/imports", { key })).body.meta.total).toBe(1)
  })
})
