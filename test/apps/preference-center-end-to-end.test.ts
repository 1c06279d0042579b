import { describe, expect, it } from "vitest"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { callApi, type Running, start } from "../support/processes.js"

/**
 * The preference center through the process an operator runs, `npm start` on its embedded
 * database: a subscriber's link, the erasure they ask for, and the worker in the same process
 * carrying it out within a minute.
 */

type Answer = { readonly [field: string]: unknown } & { readonly id?: string; readonly token?: string }

describe("the preference center under npm start", () => {
  it("a subscriber asks to be erased with their link, and the running worker erases them", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "roster-preferences-"))
    let app: Running | undefined
    try {
      app = await start("start", { DATA_DIR: dataDir })
      const key = app.output().match(/svc_test_[0-9A-Za-z]{32,}/)?.[0]
      expect(key, app.output()).toBeDefined()
      const created = await callApi<Answer>(`${app.url}/api/v1/subscribers`, key!, "POST", { email: "erase-me@example.com" })
      expect(created.status).toBe(201)
      const id = created.body!.id!
      const link = await callApi<Answer>(`${app.url}/api/v1/subscribers/${id}/token`, key!, "POST")
      const token = encodeURIComponent(link.body!.token!)
      const asked = await fetch(`${app.url}/preference-center/account?token=${token}`, { method: "DELETE" })
      expect(asked.status).toBe(202)

      const deadline = Date.now() + 30_000
      let status = 200
      while (Date.now() < deadline) {
        status = (await callApi(`${app.url}/api/v1/subscribers/${id}`, key!, "GET")).status
        if (status === 404) break
        await new Promise((r) => setTimeout(r, 250))
      }
      expect(status, app.output()).toBe(404)
      expect((await fetch(`${app.url}/preference-center?token=${token}`)).status).toBe(401)
    } finally {
      if (app !== undefined) expect(await app.stop()).toBe(0)
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 150_000)
})
