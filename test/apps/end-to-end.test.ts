import { describe, expect, it } from "vitest"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { spawnSync } from "node:child_process"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { postgresForProcesses as postgres } from "../support/servers.js"
import { createServer } from "node:net"
import { callApi, run, start, startUntilHealthy } from "../support/processes.js"

/**
 * The processes an operator runs, started as they start them: the CLI, the API and `npm start`,
 * on the embedded database and on PostgreSQL.
 */

/** The fields these tests read from JSON answers. */
type Answer = { readonly [field: string]: unknown } & {
  readonly id?: string
  readonly key?: string
  readonly items?: ReadonlyArray<{ readonly email: string }>
  readonly next_cursor?: string | null
  readonly total?: number
  readonly status?: string
}

const json = (text: string) => JSON.parse(text) as Answer

const send = (url: string, key: string, method: string, body?: unknown) => callApi<Answer>(url, key, method, body)

/** A short tour of the API with one key: what a new user does first. */
const tour = async (base: string, key: string) => {
  const api = `${base}/api/v1`
  const tag = await send(`${api}/tags`, key, "POST", { name: "Weekly digest" })
  expect(tag.status).toBe(201)
  const created = await send(`${api}/subscribers`, key, "POST", { email: "ada@example.com", tags: [tag.body!.id] })
  expect(created.status).toBe(201)
  expect(created.body!.tags).toEqual([{ id: tag.body!.id, name: "Weekly digest", slug: "weekly-digest" }])
  expect((await send(`${api}/subscribers`, key, "POST", { email: "ADA@example.com" })).status).toBe(409)
  for (const n of [1, 2, 3]) expect((await send(`${api}/subscribers`, key, "POST", { email: `r${n}@example.com` })).status).toBe(201)
  const first = await send(`${api}/subscribers?limit=2&sort=email&order=asc`, key, "GET")
  expect(first.headers.get("x-total-count")).toBe("4")
  expect(first.headers.get("link")).toContain('rel="next"')
  const second = await send(`${api}/subscribers?limit=2&sort=email&order=asc&cursor=${first.body!.next_cursor}`, key, "GET")
  expect([...first.body!.items!, ...second.body!.items!].map((s) => s.email))
    .toEqual(["ada@example.com", "r1@example.com", "r2@example.com", "r3@example.com"])
  expect(second.body!.next_cursor).toBeNull()
  const moved = await send(`${api}/subscribers/${created.body!.id}`, key, "PUT", { status: "unsubscribed" })
  expect(moved.body!.status).toBe("unsubscribed")
  expect((await send(`${api}/subscribers/${created.body!.id}`, key, "DELETE")).status).toBe(204)
}

describe("the embedded database", () => {
  it("the CLI creates an organization and a key that the API then accepts; while the API runs, the CLI is refused", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "roster-e2e-"))
    try {
      const env = { DATA_DIR: dataDir }
      const organization = await run("cli", ["org", "create", "--name", "Acme News", "--slug", "acme", "--tier", "pro"], env)
      expect(organization.code).toBe(0)
      expect(json(organization.stdout)).toMatchObject({ name: "Acme News", slug: "acme", tier: "pro", is_platform_admin: false })
      const issued = await run("cli", ["api-key", "create", "--org", "acme", "--name", "Import", "--scopes", "*"], env)
      expect(issued.code).toBe(0)
      const key = json(issued.stdout).key!
      expect(key).toMatch(/^svc_live_[0-9A-Za-z]{32,}$/)

      const api = await start("api", env)
      try {
        await tour(api.url, key)
        const refused = await run("cli", ["org", "create", "--name", "Other", "--slug", "other"], env)
        expect(refused.code).toBe(1)
        expect(refused.stderr).toMatch(/^roster: the embedded database in .* is in use by process \d+/)
        expect(refused.stdout).toBe("")
      } finally {
        expect(await api.stop()).toBe(0)
      }
      // Stopped cleanly, the server leaves the database to the next process.
      const after = await run("cli", ["org", "create", "--name", "Other", "--slug", "other"], env)
      expect(after.code).toBe(0)
      expect(json(after.stdout)).toMatchObject({ tier: "free", rate_limit_per_minute: 100 })
      const custom = await run("cli", ["org", "create", "--name", "Big", "--slug", "big", "--tier", "enterprise", "--rate-limit", "0"], env)
      expect(custom.code, custom.stderr).toBe(0)
      expect(json(custom.stdout)).toMatchObject({ tier: "enterprise", rate_limit_per_minute: null })
      const below = await run("cli", ["org", "create", "--name", "Small", "--slug", "small", "--rate-limit", "500"], env)
      expect(below.code).toBe(1)
      expect(below.stderr.trim()).toBe("roster: --rate-limit: a custom rate limit needs the enterprise plan; free allows 100 requests a minute")
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 120_000)

  it("npm start creates organization `default` and prints its test key on the first start only", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "roster-e2e-"))
    try {
      const first = await start("start", { DATA_DIR: dataDir })
      const printed = first.output().match(/svc_test_[0-9A-Za-z]{32,}/g) ?? []
      expect(printed.length).toBeGreaterThan(0)
      expect(new Set(printed).size).toBe(1)
      await tour(first.url, printed[0]!)
      expect(await first.stop()).toBe(0)

      const again = await start("start", { DATA_DIR: dataDir })
      expect(again.output()).not.toMatch(/svc_test_/)
      expect(again.output()).toContain("npm run cli -- api-key create --org default")
      expect((await send(`${again.url}/api/v1/subscribers`, printed[0]!, "GET")).body!.total).toBe(3)
      expect(await again.stop()).toBe(0)
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 120_000)

  it("a database that cannot be reached stops the start with one line naming DATABASE_URL, its password hidden", async () => {
    const result = await run("api", [], { DATABASE_URL: "postgres://roster:hunter2@127.0.0.1:1/roster" })
    expect(result.code).toBe(1)
    expect(result.stderr.trim()).toBe(
      "roster: cannot use DATABASE_URL (postgres://roster:***@127.0.0.1:1/roster): connect ECONNREFUSED 127.0.0.1:1"
    )
    expect(result.stdout + result.stderr).not.toContain("hunter2")
    expect(result.stdout + result.stderr).not.toMatch(/\n\s+at /)
  }, 60_000)

  it("a port in use stops the start with one line naming PORT, and leaves DATA_DIR fit for the next start", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "roster-e2e-"))
    const taken = createServer()
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve))
    const port = (taken.address() as { port: number }).port
    try {
      const result = await run("start", [], { DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1" })
      expect(result.code).toBe(1)
      expect(result.stderr.trim()).toBe(`roster: PORT: 127.0.0.1:${port} is already in use by another process; stop it or set PORT to a free port`)
      expect(result.stdout + result.stderr).not.toMatch(/\n\s+at /)
      const next = await start("start", { DATA_DIR: dataDir })
      expect((await fetch(`${next.url}/health`)).status).toBe(200)
      expect(await next.stop()).toBe(0)
    } finally {
      taken.close()
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 120_000)

  it("a Redis that does not answer is told once, naming REDIS_URL, and the API serves on", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "roster-e2e-"))
    try {
      const api = await startUntilHealthy("api", { DATA_DIR: dataDir, REDIS_URL: "redis://127.0.0.1:1" })
      await new Promise((resolve) => setTimeout(resolve, 3_000)) // several reconnection attempts
      expect((await fetch(`${api.url}/health`)).status).toBe(200)
      expect(await api.stop()).toBe(0)
      const warnings = api.output().split("\n").filter((line) => line.includes("REDIS_URL"))
      expect(warnings).toHaveLength(1)
      expect(warnings[0]).toContain("REDIS_URL: Redis at redis://127.0.0.1:1 does not answer (connect ECONNREFUSED 127.0.0.1:1)")
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 120_000)

  it("in production without an email provider the start stops, unless ALLOW_CONSOLE_MAILER=true", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "roster-e2e-"))
    const production = { DATA_DIR: dataDir, NODE_ENV: "production", SESSION_SECRET: "s".repeat(32) }
    try {
      const refused = await run("api", [], production)
      expect(refused.code).toBe(1)
      expect(refused.stderr.trim()).toBe(
        "roster: RESEND_API_KEY: required when NODE_ENV=production, or emails (sign-in links among them) would be printed " +
          "to the log; set ALLOW_CONSOLE_MAILER=true to print them anyway"
      )
      const allowed = await startUntilHealthy("api", { ...production, ALLOW_CONSOLE_MAILER: "true" })
      expect(await allowed.stop()).toBe(0)
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 120_000)

  it("a bad configuration value stops the start with one line naming it", async () => {
    const result = await run("api", [], { PORT: "eighty" })
    expect(result.code).toBe(1)
    expect(result.stderr.trim()).toBe('roster: configuration error: PORT: expected an integer value, got "eighty"')
  }, 60_000)

  it("npm start renders templates in its render threads, from dist/: a preview, and a filter that would work for seconds refused", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "roster-e2e-"))
    try {
      const app = await start("start", { DATA_DIR: dataDir })
      const key = app.output().match(/svc_test_[0-9A-Za-z]{32,}/)?.[0]
      expect(key, app.output()).toBeDefined()
      const templates = `${app.url}/api/v1/templates`
      const made = await send(templates, key!, "POST", { name: "Hello", subject: "Hi {{ subscriber.first_name }}", html: "<b>{{ data.x }}</b>" })
      expect(made.status, JSON.stringify(made.body)).toBe(201)
      const preview = await send(`${templates}/${made.body!.id}/preview`, key!, "POST", { data: { x: "<1>" } })
      expect(preview.status, JSON.stringify(preview.body)).toBe(200)
      expect(preview.body).toMatchObject({ subject: "Hi Jane", html: "<b>&lt;1&gt;</b>" })
      const runaway = await send(templates, key!, "POST", { name: "Runaway", subject: "s", text: "{% assign r = (1..3000000) %}{{ r | sort | size }}" })
      const refused = await send(`${templates}/${runaway.body!.id}/preview`, key!, "POST", {})
      expect(refused.status, JSON.stringify(refused.body)).toBe(400)
      expect(JSON.stringify(refused.body)).toContain("makes more than 1000000 elements and characters")
      expect(await app.stop()).toBe(0)
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 120_000)

  it("the npm scripts run their program in one process, with its arguments, and refuse an unknown one", () => {
    const npm = (...args: Array<string>) =>
      spawnSync("npm", ["run", "-s", ...args], { cwd: process.cwd(), encoding: "utf8", env: { ...process.env, LOG_LEVEL: "warn" } })
    const version = npm("cli", "--", "--version")
    expect(version.status, version.stderr).toBe(0)
    expect(version.stdout.trim()).toBe(JSON.parse(readFileSync("package.json", "utf8")).version)
    const refused = spawnSync(process.execPath, ["scripts/run.mjs", "server"], { encoding: "utf8" })
    expect(refused.status).toBe(2)
    expect(refused.stderr.trim()).toBe("run.mjs: expected one of start, api, worker, cli; got server")
  }, 60_000)
})

describe.skipIf(!postgres.available)(postgres.label, () => {
  it("the API and the CLI share one PostgreSQL: keys made while the API runs work at once", async () => {
    const env = { DATABASE_URL: await postgres.database("end_to_end") }
    const api = await start("api", env)
    try {
      const slug = `e2e-${Date.now().toString(36)}`
      expect((await run("cli", ["org", "create", "--name", "E2E", "--slug", slug], env)).code).toBe(0)
      const issued = await run("cli", ["api-key", "create", "--org", slug, "--name", "k", "--scopes", "*", "--test"], env)
      expect(issued.code).toBe(0)
      await tour(api.url, json(issued.stdout).key!)
    } finally {
      expect(await api.stop()).toBe(0)
    }
  }, 120_000)

  it("logs one JSON line per request, the same from the direct lane and the HttpApi, and none at LOG_LEVEL=warn", async () => {
    const env = { DATABASE_URL: await postgres.database("request_lines") }
    const slug = `e2e-${Date.now().toString(36)}`
    expect((await run("cli", ["org", "create", "--name", "E2E", "--slug", slug, "--tier", "enterprise"], env)).code).toBe(0)
    const { key } = json((await run("cli", ["api-key", "create", "--org", slug, "--name", "k", "--scopes", "*"], env)).stdout)
    const requestsAt = async (level: string) => {
      const api = await start("api", { ...env, LOG_LEVEL: level })
      const ids: Array<string> = []
      try {
        const call = async (method: string, path: string, body?: unknown) => {
          const answer = await fetch(`${api.url}/api/v1${path}`, {
            method,
            headers: { "x-api-key": key!, "user-agent": "line-test", ...(body === undefined ? {} : { "content-type": "application/json" }) },
            ...(body === undefined ? {} : { body: JSON.stringify(body) })
          })
          ids.push(answer.headers.get("x-request-id")!)
          return answer.json() as Promise<Answer>
        }
        const created = await call("POST", "/subscribers", { email: "lines@example.com" }) // the direct lane
        await call("GET", `/subscribers/${created.id}`) // the direct lane
        await call("GET", `/subscribers/${created.id}?fields=all`) // the HttpApi: a query string
        await call("GET", "/subscribers/by-email/lines@example.com") // the HttpApi
      } finally {
        expect(await api.stop()).toBe(0)
      }
      const lines = api.output().split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line))
      // The start's probes of /ready log lines too.
      return { ids, lines: lines.filter((line) => "method" in line && line.path !== "/ready") as Array<Record<string, unknown>> }
    }

    const { ids, lines } = await requestsAt("info")
    expect(lines.map((line) => line.request_id)).toEqual(ids)
    expect(lines.map((line) => `${line.msg}`.replace(/ \d+ms$/, ""))).toEqual([
      "POST /api/v1/subscribers 201",
      `GET /api/v1/subscribers/${(lines[1]!.path as string).split("/").pop()} 200`,
      `GET ${lines[2]!.path} 200`,
      "GET /api/v1/subscribers/by-email/*** 200"
    ])
    for (const line of lines) {
      expect(Object.keys(line)).toEqual([
        "time", "level", "msg", "request_id", "method", "path", "status", "duration_ms", "client_address", "user_agent",
        "organization_id", "credential"
      ])
      expect(line).toMatchObject({ level: "info", user_agent: "line-test", credential: expect.stringMatching(/^api_key:/) })
      expect(Date.parse(line.time as string)).toBeGreaterThan(Date.now() - 120_000)
    }
    expect(new Set(lines.map((line) => line.organization_id)).size).toBe(1)

    expect((await requestsAt("warn")).lines).toEqual([])
  }, 120_000)

  it("a key deleted through one API process is refused by another, which kept it checked", async () => {
    const env = { DATABASE_URL: await postgres.database("principal_cache") }
    const slug = `e2e-${Date.now().toString(36)}`
    const created = await run("cli", ["org", "create", "--name", "E2E", "--slug", slug, "--tier", "enterprise", "--rate-limit", "0"], env)
    expect(created.code).toBe(0)
    const owner = json((await run("cli", ["api-key", "create", "--org", slug, "--name", "owner", "--scopes", "*"], env)).stdout)
    const doomed = json((await run("cli", ["api-key", "create", "--org", slug, "--name", "doomed", "--scopes", "*"], env)).stdout)
    const [a, b] = await Promise.all([start("api", env), start("api", env)])
    try {
      expect((await send(`${b.url}/api/v1/tags`, doomed.key!, "GET")).status).toBe(200)
      expect((await send(`${a.url}/api/v1/api-keys/${doomed.id}`, owner.key!, "DELETE")).status).toBe(204)
      // B checks a key against the database at most once a second (that it keeps a key no longer is
      // test/application/api-keys.test.ts's, on the test clock); here B, which had the key checked,
      // comes to refuse it. The bound on the tries only catches a process that never does.
      let status = 200
      for (let tries = 0; status === 200 && tries < 1_000; tries++) {
        status = (await send(`${b.url}/api/v1/tags`, doomed.key!, "GET")).status
        if (status === 200) await new Promise((resolve) => setTimeout(resolve, 20))
      }
      expect(status).toBe(401)
    } finally {
      expect(await a.stop()).toBe(0)
      expect(await b.stop()).toBe(0)
    }
  }, 120_000)
})
