/**
 * /api/v1/subscribers/imports: a CSV file sent over HTTP (as the body or as a form's file field)
 * is kept, answered 202 with the import, run by the worker (here its step, in the server's
 * runtime) and followed at its Location until it is done, with every problem row by line.
 */
import { Effect } from "effect"
import { once } from "node:events"
import { connect } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MemoryStore } from "../../../adapters/in-process/index.js"
import { type Answer, call, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../../support/http-server.js"
import { waitUntil } from "../../support/webhook-receiver.js"
import { runImports } from "../../support/worker-steps.js"
import { createSubscriber, expectInvalid, expectProblem, freshEmail, isoInstantPattern, uuidPattern } from "../helpers.js"

/** The largest file this suite's server takes. */
const MAX_BYTES = 16 * 1024

let server: TestHttpServer
beforeAll(async () => {
  server = await startHttpServer({ adapters: UnlimitedRateLimiterLive, config: { IMPORT_MAX_BYTES: String(MAX_BYTES) } })
})
afterAll(() => server.close())

const IMPORTS = "/api/v1/subscribers/imports"
const nothing = "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"

const csv = (...lines: ReadonlyArray<string>) => lines.map((line) => `${line}\n`).join("")

/** Uploads `text` as the body. */
const upload = (key: string, text: string | Uint8Array, options: { readonly query?: string; readonly headers?: Record<string, string> } = {}) =>
  call(server, "POST", `${IMPORTS}${options.query ?? ""}`, { key, body: text, headers: { "content-type": "text/csv", ...options.headers } })

/** Posts a multipart form, its fields in the order given (a Blob is a file part named `list.csv`). */
const uploadForm = async (key: string, fields: ReadonlyArray<readonly [string, string | Blob]>, query = ""): Promise<Answer> => {
  const form = new FormData()
  for (const [name, value] of fields) {
    if (typeof value === "string") form.append(name, value)
    else form.append(name, value, "list.csv")
  }
  const response = await fetch(`${server.baseUrl}${IMPORTS}${query}`, { method: "POST", headers: { "x-api-key": key }, body: form })
  const text = await response.text()
  return { status: response.status, headers: response.headers, text, body: text.length > 0 ? JSON.parse(text) : text }
}

const csvFile = (text: string) => new Blob([text], { type: "text/csv" })

/** Runs the worker's import step, then reads the import where its upload said it is. */
const importedAt = async (key: string, queued: Answer) => {
  expect(queued.status, queued.text).toBe(202)
  await server.run(runImports)
  const answer = await call(server, "GET", queued.headers.get("location")!, { key })
  expect(answer.status, answer.text).toBe(200)
  return answer.body
}

const subscriberByEmail = async (key: string, email: string) =>
  (await call(server, "GET", `/api/v1/subscribers/by-email/${encodeURIComponent(email)}`, { key })).body

const noCounts = { rows: 0, created: 0, updated: 0, unchanged: 0, failed: 0, kept_status: 0 }

describe("an import sent as the body", () => {
  it("is kept and queued (202, Location), then run by a worker to its end, its problem rows reported by line and column", async () => {
    const { key } = await server.seedOrganization()
    const [ada, grace] = [freshEmail("ada"), freshEmail("grace")]
    const text = csv(
      "email,first_name,status,tags,Member Rating",
      `${ada},Ada,,Weekly,5`,
      "not an address,Bob,,,3",
      `${grace},Grace,sleeping,,4`,
      `${ada.toUpperCase()},Ada again,,,1`,
      `${grace},Grace,,,2`
    )
    const queued = await upload(key, text, { query: "?file_name=members.csv" })
    expect(queued.status, queued.text).toBe(202)
    expect(queued.body).toEqual({
      id: expect.stringMatching(uuidPattern),
      status: "queued",
      file_name: "members.csv",
      byte_size: Buffer.byteLength(text),
      options: { resubscribe: false, encoding: "utf-8", create_tags: true },
      counts: noCounts,
      records_done: 0,
      problems: [],
      problem_count: 0,
      ignored_columns: [],
      failure: null,
      created_at: expect.stringMatching(isoInstantPattern),
      started_at: null,
      finished_at: null,
      updated_at: expect.stringMatching(isoInstantPattern)
    })
    expect(queued.headers.get("location")).toBe(`${IMPORTS}/${queued.body.id}`)
    // Until a worker takes it, it waits.
    expect((await call(server, "GET", queued.headers.get("location")!, { key })).body.status).toBe("queued")

    const done = await importedAt(key, queued)
    expect(done).toMatchObject({
      id: queued.body.id,
      status: "completed",
      counts: { rows: 5, created: 2, updated: 0, unchanged: 0, failed: 3, kept_status: 0 },
      records_done: 6,
      problem_count: 3,
      ignored_columns: ["Member Rating"],
      failure: null,
      started_at: expect.stringMatching(isoInstantPattern),
      finished_at: expect.stringMatching(isoInstantPattern)
    })
    expect(done.problems).toEqual([
      { line: 3, field: "email", problem: expect.any(String), email: null },
      { line: 4, field: "status", problem: expect.stringContaining("must be one of"), email: grace },
      { line: 5, field: "email", problem: "is also on line 2; only the first row with an address is imported", email: ada.toUpperCase() }
    ])
    // Grace's row on line 6 is taken: her row on line 4 was a problem, and wrote nothing.
    expect((await subscriberByEmail(key, ada)).tags.map((t: { name: string }) => t.name)).toEqual(["Weekly"])
    expect(await subscriberByEmail(key, grace)).toMatchObject({ email: grace, status: "active" })
  })

  it("reads the encoding it is told, and takes the file name from Content-Disposition", async () => {
    const { key } = await server.seedOrganization()
    const email = freshEmail("jose")
    // "José" in windows-1252: é is one byte, 0xE9.
    const bytes = Buffer.concat([Buffer.from(`email,first_name\n${email},Jos`), Buffer.from([0xe9]), Buffer.from("\n")])
    const queued = await upload(key, bytes, {
      query: "?encoding=windows-1252",
      headers: { "content-disposition": "attachment; filename=\"kunden liste.csv\"" }
    })
    expect(queued.body).toMatchObject({ file_name: "kunden liste.csv", options: { encoding: "windows-1252" } })
    expect((await importedAt(key, queued)).counts.created).toBe(1)
    expect((await call(server, "GET", `/api/v1/subscribers/by-email/${encodeURIComponent(email)}`, { key })).status).toBe(200)
    const overview = await call(server, "GET", `/api/v1/subscribers?limit=1`, { key })
    expect(overview.body.items[0].email).toBe(email)
  })

  it("a file that stops being CSV fails the import at the line to blame; the rows before it stay", async () => {
    const { key } = await server.seedOrganization()
    const before = freshEmail("before")
    const queued = await upload(key, csv("email,first_name", `${before},Ada`, "\"unclosed,Bob"))
    const done = await importedAt(key, queued)
    expect(done.status).toBe("failed")
    expect(done.failure).toEqual({ line: expect.any(Number), problem: expect.any(String) })
    expect(done.counts.created).toBe(1)
    expect((await subscriberByEmail(key, before)).email).toBe(before)
  })

  it("over IMPORT_MAX_BYTES is 413 naming the limit, and nothing of it is kept", async () => {
    const { key } = await server.seedOrganization()
    const large = csv("email", ...Array.from({ length: 1000 }, (_, i) => `reader${i}@example.com`))
    expect(Buffer.byteLength(large)).toBeGreaterThan(MAX_BYTES)
    const refused = await upload(key, large)
    expectProblem(refused, "payload_too_large", IMPORTS)
    expect(refused.body.detail).toContain(`${MAX_BYTES} bytes (16 KiB)`)
    // Sent as a form, the file is counted as it streams in.
    const asForm = await uploadForm(key, [["file", csvFile(large)]])
    expectProblem(asForm, "payload_too_large", IMPORTS)
    const list = await call(server, "GET", IMPORTS, { key })
    expect(list.body.total).toBe(0)
    await server.run(runImports)
    expect((await call(server, "GET", "/api/v1/subscribers", { key })).body.total).toBe(0)
  })

  it("that breaks off leaves nothing behind, not even as an upload in progress", async () => {
    const { key, organization } = await server.seedOrganization()
    const kept = () =>
      server.run(Effect.flatMap(MemoryStore, (store) =>
        store.read((t) => [...t.importJobs.values()].filter(({ job }) => job.organizationId === organization.id).length)))
    const socket = connect(Number(new URL(server.baseUrl).port), "127.0.0.1")
    await once(socket, "connect")
    socket.write(
      `POST ${IMPORTS} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${key}\r\nContent-Type: text/csv\r\n` +
        `Content-Length: 10000\r\n\r\nemail\n${freshEmail()}\n`
    )
    await waitUntil(async () => (await kept()) === 1, "the upload kept as it comes in", 5_000)
    socket.destroy()
    await waitUntil(async () => (await kept()) === 0, "the broken upload given up", 5_000)
    expect((await call(server, "GET", IMPORTS, { key })).body.total).toBe(0)
  })

  it("is refused with 400 when empty, or when an option is not one; another content type is 415", async () => {
    const { key } = await server.seedOrganization()
    expectInvalid(await upload(key, ""), IMPORTS, ["body"])
    const unknownEncoding = await upload(key, csv("email", freshEmail()), { query: "?encoding=klingon" })
    expectInvalid(unknownEncoding, IMPORTS, ["encoding"])
    expect(unknownEncoding.body.detail).toContain("'klingon'")
    expectInvalid(await upload(key, csv("email"), { query: "?resubscribe=yes" }), IMPORTS, ["resubscribe"])
    expectInvalid(await upload(key, csv("email"), { query: "?colour=red" }), IMPORTS, ["colour"])
    expectInvalid(await upload(key, csv("email"), { query: `?file_name=${"x".repeat(300)}` }), IMPORTS, ["file_name"])

    const json = await call(server, "POST", IMPORTS, { key, json: { email: freshEmail() } })
    expectProblem(json, "unsupported_media_type", IMPORTS)
    expect(json.body.detail).toContain("text/csv")
    // Without a Content-Type.
    expectProblem(await call(server, "POST", IMPORTS, { key, body: Buffer.from(csv("email")) }), "unsupported_media_type", IMPORTS)
    expect((await call(server, "GET", IMPORTS, { key })).body.total).toBe(0)
  })
})

describe("an import sent as a multipart form", () => {
  it("takes the file field and the options before it; resubscribe brings back who left, and without it they keep their status", async () => {
    const { key } = await server.seedOrganization()
    const [left, stays] = [await createSubscriber(server, key), await createSubscriber(server, key)]
    for (const subscriber of [left, stays]) {
      const answer = await call(server, "PUT", `/api/v1/subscribers/${subscriber.id}`, { key, json: { status: "unsubscribed" } })
      expect(answer.status, answer.text).toBe(200)
    }
    const kept = await importedAt(key, await uploadForm(key, [["file", csvFile(csv("email,status", `${stays.email},active`))]]))
    expect(kept).toMatchObject({ file_name: "list.csv", options: { resubscribe: false }, counts: { rows: 1, kept_status: 1 } })
    expect((await subscriberByEmail(key, stays.email)).status).toBe("unsubscribed")

    const queued = await uploadForm(key, [["resubscribe", "true"], ["encoding", "utf-8"], ["file", csvFile(csv("email", left.email))]])
    expect(queued.body).toMatchObject({ status: "queued", file_name: "list.csv", options: { resubscribe: true, encoding: "utf-8" } })
    expect(queued.headers.get("location")).toBe(`${IMPORTS}/${queued.body.id}`)
    const back = await importedAt(key, queued)
    expect(back.counts).toEqual({ ...noCounts, rows: 1, updated: 1 })
    expect((await subscriberByEmail(key, left.email)).status).toBe("active")
  })

  it("options may come in the query; the form's fields win", async () => {
    const { key } = await server.seedOrganization()
    const queued = await uploadForm(key, [["encoding", "iso-8859-15"], ["file", csvFile(csv("email", freshEmail()))]], "?encoding=utf-8&resubscribe=true&file_name=named.csv")
    expect(queued.body).toMatchObject({ file_name: "named.csv", options: { resubscribe: true, encoding: "iso-8859-15" } })
  })

  it("is refused with 400 naming what is wrong: no file, an empty one, a field after the file, an unknown field, a bad option", async () => {
    const { key } = await server.seedOrganization()
    const file = csvFile(csv("email", freshEmail()))
    expectInvalid(await uploadForm(key, [["resubscribe", "true"]]), IMPORTS, ["file"])
    expectInvalid(await uploadForm(key, [["file", "email\nada@example.com\n"]]), IMPORTS, ["file"])
    expectInvalid(await uploadForm(key, [["file", csvFile("")]]), IMPORTS, ["file"])
    expectInvalid(await uploadForm(key, [["file", file], ["resubscribe", "true"]]), IMPORTS, ["resubscribe"])
    expectInvalid(await uploadForm(key, [["colour", "red"], ["file", file]]), IMPORTS, ["colour"])
    expectInvalid(await uploadForm(key, [["resubscribe", "sometimes"], ["file", file]]), IMPORTS, ["resubscribe"])
    expectInvalid(await uploadForm(key, [["encoding", "klingon"], ["file", file]]), IMPORTS, ["encoding"])
    const broken = await call(server, "POST", IMPORTS, { key, body: "--x\r\nnot a part", headers: { "content-type": "multipart/form-data; boundary=x" } })
    expectProblem(broken, "validation_error", IMPORTS)
    expect((await call(server, "GET", IMPORTS, { key })).body.total).toBe(0)
  })
})

describe("following imports", () => {
  it("lists the organization's imports newest first, a page at a time, without their problems", async () => {
    const { key } = await server.seedOrganization()
    const ids: Array<string> = []
    for (let i = 0; i < 3; i++) ids.push((await upload(key, csv("email", freshEmail(), "bad"))).body.id)
    await server.run(runImports)
    const first = await call(server, "GET", `${IMPORTS}?limit=2`, { key })
    expect(first.status, first.text).toBe(200)
    expect(first.headers.get("x-total-count")).toBe("3")
    expect(first.body.items.map((item: { id: string }) => item.id)).toEqual([ids[2], ids[1]])
    expect(first.body.items[0]).toMatchObject({ status: "completed", problem_count: 1 })
    expect(first.body.items[0]).not.toHaveProperty("problems")
    expect(first.headers.get("link")).toContain("rel=\"next\"")
    const rest = await call(server, "GET", `${IMPORTS}?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`, { key })
    expect(rest.body).toMatchObject({ items: [{ id: ids[0] }], total: 3, next_cursor: null })
    expectInvalid(await call(server, "GET", `${IMPORTS}?limit=0`, { key }), IMPORTS, ["limit"])
  })

  it("another organization's import is refused and tells nothing; an unknown one is 404", async () => {
    const [owner, other] = [await server.seedOrganization(), await server.seedOrganization()]
    const queued = await upload(owner.key, csv("email", freshEmail()))
    const path = `${IMPORTS}/${queued.body.id}`
    const foreign = await call(server, "GET", path, { key: other.key })
    expectProblem(foreign, "forbidden", path)
    expect(foreign.text).not.toContain("email")
    expect((await call(server, "GET", IMPORTS, { key: other.key })).body.total).toBe(0)
    expectProblem(await call(server, "GET", `${IMPORTS}/${nothing}`, { key: owner.key }), "not_found", `${IMPORTS}/${nothing}`)
    expectInvalid(await call(server, "GET", `${IMPORTS}/not-an-id`, { key: owner.key }), `${IMPORTS}/not-an-id`, ["import_id"])
  })

  it("needs subscribers:write to upload and subscribers:read to follow; without tags:write, unknown tags are problems", async () => {
    const { organization } = await server.seedOrganization()
    const reader = await server.createApiKey(organization, ["subscribers:read"])
    const writer = await server.createApiKey(organization, ["subscribers:write"])
    const refused = await upload(reader, csv("email", freshEmail()))
    expectProblem(refused, "forbidden", IMPORTS)
    expect(refused.body.detail).toContain("subscribers:write")
    expectProblem(await uploadForm(reader, [["file", csvFile(csv("email", freshEmail()))]]), "forbidden", IMPORTS)

    const queued = await upload(writer, csv("email,tags", `${freshEmail()},Brand New Tag`))
    expect(queued.body.options.create_tags).toBe(false)
    expectProblem(await call(server, "GET", queued.headers.get("location")!, { key: writer }), "forbidden", queued.headers.get("location")!)
    expectProblem(await call(server, "GET", IMPORTS, { key: writer }), "forbidden", IMPORTS)
    const done = await importedAt(reader, queued)
    expect(done.problems).toEqual([{ line: 2, field: "tags", problem: expect.stringContaining("tags:write"), email: expect.any(String) }])
  })

  it("ignores Idempotency-Key: the same upload sent twice is two imports, the second changing nothing", async () => {
    const { key } = await server.seedOrganization()
    const text = csv("email", freshEmail())
    const headers = { "idempotency-key": "5f0c1d7e-3a52-4f0e-9a53-6d2b8c1f4e11" }
    const [first, second] = [await upload(key, text, { headers }), await upload(key, text, { headers })]
    expect(second.headers.get("idempotent-replayed")).toBeNull()
    expect(second.body.id).not.toBe(first.body.id)
    await server.run(runImports)
    const [a, b] = await Promise.all([first, second].map((q) => call(server, "GET", q.headers.get("location")!, { key })))
    expect([a!.body.counts.created, b!.body.counts.unchanged]).toEqual([1, 1])
  })

  it("keeps the first thousand problems and counts every one", async () => {
    const { key } = await server.seedOrganization()
    const queued = await upload(key, csv("email", ...Array.from({ length: 1100 }, (_, i) => `x${i}`)))
    const done = await importedAt(key, queued)
    expect([done.problem_count, done.counts.failed, done.problems.length]).toEqual([1100, 1100, 1000])
    expect([done.problems[0].line, done.problems[999].line]).toEqual([2, 1001])
  })
})
