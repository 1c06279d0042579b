import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../../support/http-server.js"
import { runImports } from "../../support/worker-steps.js"

let server: TestHttpServer
beforeAll(async () => {
  server = await startHttpServer({ adapters: UnlimitedRateLimiterLive, config: { IMPORT_MAX_BYTES: "4096" } })
})
afterAll(() => server.close())

describe("smoke", () => {
  it("raw", async () => {
    const { key } = await server.seedOrganization()
    const up = await call(server, "POST", "/api/v1/subscribers/imports?file_name=a.csv", { key, body: "email,first_name\nada@example.com,Ada\nbad,Bob\n", headers: { "content-type": "text/csv" } })
    console.log(up.status, up.headers.get("location"), up.text)
    await server.run(runImports)
    const got = await call(server, "GET", up.headers.get("location")!, { key })
    console.log(got.status, got.text)
    const form = new FormData()
    form.append("resubscribe", "true")
    form.append("file", new Blob(["email\ngrace@example.com\n"], { type: "text/csv" }), "b.csv")
    const mp = await fetch(`${server.baseUrl}/api/v1/subscribers/imports`, { method: "POST", headers: { "x-api-key": key }, body: form })
    console.log(mp.status, await mp.text())
    const list = await call(server, "GET", "/api/v1/subscribers/imports", { key })
    console.log(list.status, list.headers.get("x-total-count"), list.text.slice(0, 300))
  })
})
