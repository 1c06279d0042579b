import { parse } from "csv-parse/sync"
import { describe, expect, it } from "vitest"
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { postgresForProcesses as postgres } from "../support/servers.js"
import { callApi, run, start, startWorker } from "../support/processes.js"

/**
 * The operators' command line, run as `npm run cli` runs it (the compiled program), on the
 * embedded database and on PostgreSQL: JSON on stdout, one line `roster: ...` on stderr and exit 1
 * on failure.
 */

/** The fields these tests read from JSON answers. */
type Json = { readonly [field: string]: unknown } & {
  readonly id: string
  readonly key: string
  readonly next_cursor: string
  readonly items: ReadonlyArray<Json>
  readonly scopes: ReadonlyArray<string>
}

const escapeCodes = /\u001b\[/

/** Runs the CLI and expects it to succeed with one JSON document on stdout. */
const succeeds = async (env: Record<string, string>, args: ReadonlyArray<string>): Promise<Json> => {
  const result = await run("cli", args, env)
  expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(0)
  return JSON.parse(result.stdout) as Json
}

/** Runs the CLI and expects it to fail with one line on stderr and nothing on stdout; the line. */
const fails = async (env: Record<string, string>, args: ReadonlyArray<string>): Promise<string> => {
  const result = await run("cli", args, env)
  expect(result.code, `${args.join(" ")}: ${result.stdout}`).toBe(1)
  expect(result.stdout).toBe("")
  expect(result.stderr).not.toMatch(escapeCodes)
  const lines = result.stderr.trimEnd().split("\n")
  expect(lines, result.stderr).toHaveLength(1)
  return lines[0]!
}

/**
 * Refusals depend on the command line alone, and the variations of a command (each update, each
 * page of a list, each export filter) on the command and the SQL both databases share, not on
 * which database runs it: they are checked once, on PostgreSQL when it is at hand, else on the
 * embedded database. Each command runs on both.
 */
const checkOnce = (database: "embedded" | "postgres") => database === "postgres" || !postgres.available

/**
 * Organizations: create, list, show and change by slug, with every refusal naming its option;
 * `once` adds the checks made on one database only (see `checkOnce`).
 */
const organizations = async (env: Record<string, string>, slug: string, once: boolean) => {
  const created = await succeeds(env, ["org", "create", "--name", "Acme News", "--slug", slug, "--tier", "pro"])
  expect(created).toMatchObject({ slug, tier: "pro", rate_limit_per_minute: 1000, custom_rate_limit: null, member_count: 0 })
  if (once) {
    // Without plans, the pro plan's rate does not apply.
    expect(await succeeds({ ...env, PLAN_LIMITS: "off" }, ["org", "show", slug])).toMatchObject({ tier: "pro", rate_limit_per_minute: null })
  }
  const other = await succeeds(env, ["org", "create", "--name", "Other", "--slug", `${slug}-b`])

  const listed = await succeeds(env, ["org", "list"])
  expect(listed.items.map((o) => o.slug)).toEqual(expect.arrayContaining([slug, `${slug}-b`]))
  expect(listed).toMatchObject({ total: listed.items.length, next_cursor: null })
  if (once) {
    const first = await succeeds(env, ["org", "list", "--limit", "1"])
    expect(first.items).toHaveLength(1)
    const second = await succeeds(env, ["org", "list", "--limit", "1", "--cursor", first.next_cursor])
    expect(second.items[0]!.id).not.toBe(first.items[0]!.id)
    expect(await fails(env, ["org", "list", "--limit", "0"])).toBe("roster: --limit: expected a whole number from 1 to 1000; got '0'")
    expect(await fails(env, ["org", "list", "--cursor", "nonsense"])).toBe("roster: --cursor: is not a cursor this service issued")
  }

  expect(await succeeds(env, ["org", "show", slug])).toEqual(created)
  expect(await fails(env, ["org", "show", "no-such-org"])).toBe("roster: no organization no-such-org")

  if (once) {
    expect(await fails(env, ["org", "update", slug, "--rate-limit", "5000"]))
      .toBe("roster: --rate-limit: a custom rate limit needs the enterprise plan; pro allows 1000 requests a minute")
  }
  const moved = await succeeds(env, ["org", "update", slug, "--tier", "enterprise", "--rate-limit", "5000", "--name", "Acme Corp"])
  expect(moved).toMatchObject({ id: created.id, name: "Acme Corp", tier: "enterprise", rate_limit_per_minute: 5000, custom_rate_limit: 5000 })
  if (once) {
    expect(await succeeds(env, ["org", "update", slug, "--rate-limit", "plan"])).toMatchObject({ rate_limit_per_minute: 10000, custom_rate_limit: null })
    expect(await succeeds(env, ["org", "update", slug, "--rate-limit", "0"])).toMatchObject({ rate_limit_per_minute: null, custom_rate_limit: 0 })
    expect(await succeeds(env, ["org", "update", slug, "--platform-admin", "true"])).toMatchObject({ is_platform_admin: true })
  }
  const down = await succeeds(env, ["org", "update", "--tier", "free", slug, "--platform-admin", "false"])
  expect(down).toMatchObject({ tier: "free", rate_limit_per_minute: 100, custom_rate_limit: null, is_platform_admin: false, name: "Acme Corp" })
  expect(await succeeds(env, ["org", "show", `${slug}-b`])).toEqual(other)

  if (once) {
    expect(await fails(env, ["org", "update", slug, "--tier", "gold"])).toBe("roster: --tier: expected one of free, pro, enterprise; got 'gold'")
    expect(await fails(env, ["org", "create", "--name", "X", "--slug", `${slug}-c`, "--tier", "gold"]))
      .toBe("roster: --tier: expected one of free, pro, enterprise; got 'gold'")
    expect(await fails(env, ["org", "update", slug, "--platform-admin", "yes"]))
      .toBe("roster: --platform-admin: expected one of true, false; got 'yes'")
    expect(await fails(env, ["org", "update", slug, "--rate-limit", "fast"]))
      .toBe("roster: --rate-limit: expected a whole number from 0 to 100000000; got 'fast'")
    expect(await fails(env, ["org", "update", slug, "--name", " "])).toBe("roster: --name: must not be empty")
    expect(await fails(env, ["org", "update", "no-such-org", "--name", "X"])).toBe("roster: no organization no-such-org")
    expect(await fails(env, ["org", "update", slug, "--bogus", "1"])).toBe("roster: Received unknown argument: '--bogus'")
    expect(await fails(env, ["org", "create", "--name", "X"])).toBe("roster: Expected to find option: '--slug'")
  }
}

/** API keys: made with named scopes only, listed without secrets, rotated and revoked. */
const apiKeys = async (env: Record<string, string>, slug: string, once: boolean) => {
  if (once) {
    const missing = await fails(env, ["api-key", "create", "--org", slug, "--name", "CRM"])
    expect(missing).toMatch(/^roster: --scopes: required; give one or more of subscribers:read, .*webhooks:manage, \*, separated by commas$/)
    expect(await fails(env, ["api-key", "create", "--org", slug, "--name", "CRM", "--scopes", "subscribers:read,everything"]))
      .toMatch(/^roster: --scopes: unknown scope 'everything'; known scopes: subscribers:read, /)
    expect(await fails(env, ["api-key", "create", "--org", "no-such-org", "--name", "CRM", "--scopes", "*"]))
      .toBe("roster: no organization no-such-org")
  }

  const made = await run("cli", ["api-key", "create", "--org", slug, "--name", "CRM", "--scopes", "subscribers:read, tags:read"], env)
  expect(made.code).toBe(0)
  expect(made.stderr).toContain("only time the full key is shown")
  const issued = JSON.parse(made.stdout) as Json
  expect(issued).toMatchObject({ name: "CRM", scopes: ["subscribers:read", "tags:read"], environment: "live", revoked_at: null })
  expect(issued.key).toMatch(/^svc_live_[0-9A-Za-z]{32,}$/)
  const owner = await succeeds(env, ["api-key", "create", "--org", slug, "--name", "Owner", "--scopes", "*", "--test"])

  const listed = await run("cli", ["api-key", "list", "--org", slug], env)
  expect(listed.code).toBe(0)
  expect(listed.stdout).not.toContain(issued.key)
  expect(listed.stdout).not.toContain(owner.key)
  expect(listed.stdout).not.toMatch(/key_hash|"key"/)
  const { key: _key, ...record } = issued
  expect(JSON.parse(listed.stdout)).toEqual({ items: [record, expect.objectContaining({ id: owner.id, scopes: ["*"] })], total: 2 })

  const rotated = await succeeds(env, ["api-key", "rotate", "--org", slug, issued.id])
  expect(rotated).toMatchObject({ id: issued.id, name: "CRM", scopes: issued.scopes, last_four: rotated.key.slice(-4) })
  expect(rotated.key).not.toBe(issued.key)
  const revoked = await succeeds(env, ["api-key", "revoke", "--org", slug, owner.id])
  expect(revoked).toMatchObject({ id: owner.id, revoked_at: expect.stringMatching(/^\d{4}-/) })
  expect(revoked).not.toHaveProperty("key")
  const unknown = "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"
  if (once) {
    expect(await succeeds(env, ["api-key", "revoke", "--org", slug, owner.id])).toEqual(revoked)
    expect(await fails(env, ["api-key", "rotate", "--org", slug, owner.id]))
      .toBe("roster: ID: the key is revoked and cannot be rotated; create a new one")
    expect(await fails(env, ["api-key", "revoke", "--org", slug, unknown])).toBe(`roster: no api key ${unknown}`)
    expect(await fails(env, ["api-key", "rotate", "--org", slug, unknown])).toBe(`roster: no api key ${unknown}`)
    expect(await fails(env, ["api-key", "revoke", "--org", `${slug}-b`, issued.id])).toBe(`roster: no api key ${issued.id}`)
    expect(await fails(env, ["api-key", "revoke", "--org", slug, "key-1"])).toBe("roster: ID: must be a UUID")
    expect(await fails(env, ["api-key", "list", "--org", "no-such-org"])).toBe("roster: no organization no-such-org")
  }
  return { rotated: rotated.key, old: issued.key, revoked: owner.key }
}

/** What the API makes of the keys: the rotated key works, the old one and the revoked one do not. */
const keysAtTheApi = async (url: string, keys: { readonly rotated: string; readonly old: string; readonly revoked: string }) => {
  expect((await callApi(`${url}/api/v1/subscribers`, keys.rotated, "GET")).status).toBe(200)
  expect((await callApi(`${url}/api/v1/subscribers`, keys.old, "GET")).status).toBe(401)
  const refused = await callApi<Json>(`${url}/api/v1/subscribers`, keys.revoked, "GET")
  expect(refused.status).toBe(401)
}

/** An organization with a key of every scope, made through the CLI; the key. */
const keyOfNewOrganization = async (env: Record<string, string>, slug: string) => {
  await succeeds(env, ["org", "create", "--name", "Health", "--slug", slug])
  return (await succeeds(env, ["api-key", "create", "--org", slug, "--name", "owner", "--scopes", "*"])).key
}

/** `worker health`: its JSON on stdout, whatever the verdict, and its exit code. */
const workerHealth = async (env: Record<string, string>, maxLag: string) => {
  const result = await run("cli", ["worker", "health", "--max-lag", maxLag], env)
  expect(result.stderr).not.toMatch(escapeCodes)
  expect(result.stderr.trimEnd().split("\n"), result.stderr).toHaveLength(1)
  return { code: result.code, report: JSON.parse(result.stdout) as Json, stderr: result.stderr.trim() }
}

/** With events waiting for a worker: healthy within a generous lag, overdue within none. */
const expectEventsWaiting = async (env: Record<string, string>) => {
  const lenient = await workerHealth(env, "3600")
  expect(lenient.code).toBe(0)
  expect(lenient.report).toMatchObject({
    healthy: true,
    max_lag_seconds: 3600,
    overdue: [],
    events: { undispatched: expect.any(Number), due: expect.any(Number), oldest_due_age_seconds: expect.any(Number) },
    webhook_deliveries: { pending: 0, due: 0, oldest_due_age_seconds: null },
    emails: { queued: 0, due: 0, oldest_due_age_seconds: null },
    campaigns: { sending: 0, emails: { queued: 0 }, scheduled: { waiting: 0 } },
    trigger_firings: { pending: 0 },
    sequence_steps: { waiting: 0, due: 0, oldest_due_age_seconds: null },
    imports: { unfinished: 0, due: 0, oldest_due_age_seconds: null }
  })
  const events = lenient.report.events as { readonly undispatched: number; readonly due: number }
  expect(events.undispatched).toBe(events.due)
  expect(events.due).toBeGreaterThanOrEqual(1)
  const strict = await workerHealth(env, "0")
  expect(strict.code).toBe(1)
  expect(strict.report).toMatchObject({ healthy: false, overdue: [{ work: "events", lag_seconds: expect.any(Number) }] })
  expect(strict.stderr).toMatch(/^roster: work is overdue \(more than --max-lag 0 s\): events waited \d+ s$/)
}

/** `worker health` refuses a --max-lag that is not a number of seconds, naming the option. */
const refusesMaxLag = async (env: Record<string, string>) =>
  expect(await fails(env, ["worker", "health", "--max-lag", "soon"]))
    .toBe("roster: --max-lag: expected a whole number from 0 to 604800; got 'soon'")

const metricsToken = "cli-end-to-end-metrics-token"

/** The events waiting for a worker, as a running process's `/metrics` reads them from the database. */
const eventsWaiting = async (url: string) => {
  const answer = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })
  const text = await answer.text()
  expect(answer.status, text).toBe(200)
  const waiting = /^roster_queue_waiting\{work="events"\} (\d+)$/m.exec(text)
  expect(waiting, text).not.toBeNull()
  return Number(waiting![1])
}

/** Subscribers made through the API for the export to find. */
const subscribersToExport = async (url: string, key: string) => {
  const api = `${url}/api/v1`
  const vip = await callApi<Json>(`${api}/tags`, key, "POST", { name: "VIP" })
  expect(vip.status).toBe(201)
  const made = [
    { email: "ada@example.com", tags: [vip.body!.id], metadata: { plan: "pro", seats: 3, company: "Analytical, Ltd" } },
    { email: "eve@example.com", metadata: { note: "=HYPERLINK(\"http://evil.example\")", phone: "+1 555", city: "-", handle: "@eve", tab: "\tx" } },
    { email: "bob@example.com" }
  ]
  const ids: Array<string> = []
  for (const body of made) {
    const answer = await callApi<Json>(`${api}/subscribers`, key, "POST", body)
    expect(answer.status, JSON.stringify(answer.body)).toBe(201)
    ids.push(answer.body!.id)
  }
  expect((await callApi(`${api}/subscribers/${ids[2]}`, key, "PUT", { status: "unsubscribed" })).status).toBe(200)
}

/** The export as CSV rows, header first. */
const exported = async (env: Record<string, string>, args: ReadonlyArray<string>) => {
  const result = await run("cli", ["subscribers", "export", ...args], env)
  expect(result.code, result.stderr).toBe(0)
  expect(result.stdout).toMatch(/\r\n$/)
  return { rows: parse(result.stdout) as ReadonlyArray<ReadonlyArray<string>>, stderr: result.stderr.trim() }
}

/** What the export writes, with each filter, and its refusals. */
const exportsSubscribers = async (env: Record<string, string>, slug: string, once: boolean) => {
  const all = await exported(env, ["--org", slug])
  expect(all.stderr).toBe("roster: exported 3 subscribers")
  const metadataColumns = ["city", "company", "handle", "note", "phone", "plan", "seats", "tab"].map((key) => `metadata.${key}`)
  expect(all.rows[0]).toEqual(["email", "first_name", "last_name", "status", "tags", "created_at", ...metadataColumns])
  expect(all.rows.slice(1).map((row) => row.slice(0, 5))).toEqual([
    ["ada@example.com", "", "", "active", "VIP"],
    ["eve@example.com", "", "", "active", ""],
    ["bob@example.com", "", "", "unsubscribed", ""]
  ])
  expect(all.rows[1]!.slice(6)).toEqual(["", "Analytical, Ltd", "", "", "", "pro", "3", ""])
  expect(all.rows[2]!.slice(6)).toEqual(["'-", "", "'@eve", "'=HYPERLINK(\"http://evil.example\")", "'+1 555", "", "", "'\tx"])
  expect(all.rows[1]![5]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)

  const vip = await exported(env, ["--org", slug, "--tag", "vip"])
  expect(vip.rows.map((row) => row[0])).toEqual(["email", "ada@example.com"])
  expect(vip.rows[0]!.slice(6)).toEqual(["metadata.company", "metadata.plan", "metadata.seats"])
  const unsubscribed = await exported(env, ["--org", slug, "--status", "unsubscribed"])
  expect(unsubscribed.rows).toEqual([["email", "first_name", "last_name", "status", "tags", "created_at"], expect.arrayContaining(["bob@example.com"])])

  if (once) {
    const none = await exported(env, ["--org", slug, "--status", "bounced"])
    expect(none.rows).toHaveLength(1)
    expect(none.stderr).toBe("roster: exported 0 subscribers")
    expect(await fails(env, ["subscribers", "export", "--org", slug, "--tag", "Gold"])).toBe("roster: --tag: no tag named 'Gold' in this organization")
    expect(await fails(env, ["subscribers", "export", "--org", slug, "--status", "gone"]))
      .toBe("roster: --status: expected one of active, unsubscribed, bounced, complained; got 'gone'")
    expect(await fails(env, ["subscribers", "export", "--org", "no-such-org"])).toBe("roster: no organization no-such-org")
    expect(await exportToClosedOutput(env, slug)).toEqual({ code: 1, stderr: "roster: stdout was closed before the end (write EPIPE)\n" })
  }
}

/** An export whose reader has gone before it writes: it stops with one line, not a stack trace. */
const exportToClosedOutput = (env: Record<string, string>, slug: string) =>
  new Promise<{ readonly code: number | null; readonly stderr: string }>((resolve) => {
    const child = spawn(process.execPath, ["dist/cli.mjs", "subscribers", "export", "--org", slug], {
      cwd: fileURLToPath(new URL("../..", import.meta.url)),
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }
    })
    child.stdout.destroy()
    let stderr = ""
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.on("close", (code) => resolve({ code, stderr }))
  })

describe("the CLI on the embedded database", () => {
  it("manages organizations and API keys; the API honours rotated and revoked keys", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "roster-cli-"))
    try {
      const env = { DATA_DIR: dataDir }
      await organizations(env, "acme", checkOnce("embedded"))
      const keys = await apiKeys(env, "acme", checkOnce("embedded"))
      const api = await start("api", env)
      try {
        await keysAtTheApi(api.url, keys)
      } finally {
        expect(await api.stop()).toBe(0)
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 300_000)

  it("worker health fails while events wait longer than --max-lag, and passes once a worker handed them on", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "roster-cli-"))
    try {
      const env = { DATA_DIR: dataDir }
      const key = await keyOfNewOrganization(env, "health")
      const api = await start("api", env)
      try {
        expect((await callApi(`${api.url}/api/v1/subscribers`, key, "POST", { email: "ada@example.com" })).status).toBe(201)
      } finally {
        expect(await api.stop()).toBe(0)
      }
      await expectEventsWaiting(env)
      if (checkOnce("embedded")) await refusesMaxLag(env)

      const both = await start("start", { ...env, METRICS_TOKEN: metricsToken }) // the API with its worker
      try {
        // The embedded database is the running process's alone: its /metrics says when the events are handed on.
        const deadline = Date.now() + 60_000
        while (await eventsWaiting(both.url) > 0) {
          if (Date.now() > deadline) throw new Error(`the worker did not hand the events on:\n${both.output()}`)
          await new Promise((resolve) => setTimeout(resolve, 250))
        }
      } finally {
        expect(await both.stop()).toBe(0)
      }
      const after = await workerHealth(env, "0")
      expect(after.code, after.stderr).toBe(0)
      expect(after.report).toMatchObject({ healthy: true, events: { undispatched: 0, due: 0, oldest_due_age_seconds: null } })
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 120_000)

  it("subscribers export writes CSV with a column per metadata key, formulas neutralised, by status and tag", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "roster-cli-"))
    try {
      const env = { DATA_DIR: dataDir }
      const key = await keyOfNewOrganization(env, "export")
      const api = await start("api", env)
      try {
        await subscribersToExport(api.url, key)
      } finally {
        expect(await api.stop()).toBe(0)
      }
      await exportsSubscribers(env, "export", checkOnce("embedded"))
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 120_000)

  it("help names every command and carries no escape codes when piped", async () => {
    const env = { DATA_DIR: mkdtempSync(join(tmpdir(), "roster-cli-")) }
    try {
      const expectations: ReadonlyArray<readonly [ReadonlyArray<string>, ReadonlyArray<string>]> = [
        [["--help"], ["migrate", "org", "api-key", "worker", "subscribers"]],
        [["subscribers", "export", "--help"], ["--org", "--status", "--tag"]],
        [["worker", "health", "--help"], ["--max-lag"]],
        [["org", "--help"], ["create", "list", "show", "update"]],
        [["org", "update", "--help"], ["--tier", "--rate-limit", "--platform-admin", "--name"]],
        [["api-key", "--help"], ["create", "list", "revoke", "rotate"]]
      ]
      for (const [args, words] of expectations) {
        const help = await run("cli", args, env)
        expect(help.code).toBe(0)
        expect(help.stdout).not.toMatch(escapeCodes)
        for (const word of words) expect(help.stdout).toContain(word)
      }
    } finally {
      rmSync(env.DATA_DIR, { recursive: true, force: true })
    }
  }, 60_000)
})

describe.skipIf(!postgres.available)(`the CLI on ${postgres.label}`, () => {
  it("manages organizations and API keys while the API runs; the API honours rotated and revoked keys at once", async () => {
    const env = { DATABASE_URL: await postgres.database("cli_end_to_end") }
    const api = await start("api", env)
    try {
      const slug = `cli-${Date.now().toString(36)}`
      await organizations(env, slug, checkOnce("postgres"))
      const keys = await apiKeys(env, slug, checkOnce("postgres"))
      await new Promise((resolve) => setTimeout(resolve, 1_100)) // the API's principal cache lasts a second
      await keysAtTheApi(api.url, keys)
    } finally {
      expect(await api.stop()).toBe(0)
    }
  }, 300_000)

  it("worker health fails while events wait for a worker, and passes once one runs", async () => {
    const env = { DATABASE_URL: await postgres.database("cli_worker_health") }
    const key = await keyOfNewOrganization(env, `health-${Date.now().toString(36)}`)
    const api = await start("api", env)
    try {
      expect((await callApi(`${api.url}/api/v1/subscribers`, key, "POST", { email: "ada@example.com" })).status).toBe(201)
      await expectEventsWaiting(env)
      if (checkOnce("postgres")) await refusesMaxLag(env)
      const worker = await startWorker(env)
      try {
        let health = await workerHealth(env, "0")
        for (let attempt = 0; health.code !== 0 && attempt < 20; attempt++) {
          await new Promise((resolve) => setTimeout(resolve, 250))
          health = await workerHealth(env, "0")
        }
        expect(health.code, health.stderr).toBe(0)
        expect(health.report).toMatchObject({ healthy: true, events: { undispatched: 0 } })
      } finally {
        expect(await worker.stop()).toBe(0)
      }
    } finally {
      expect(await api.stop()).toBe(0)
    }
  }, 120_000)

  it("subscribers export reads what the running API wrote", async () => {
    const env = { DATABASE_URL: await postgres.database("cli_export") }
    const slug = `export-${Date.now().toString(36)}`
    const key = await keyOfNewOrganization(env, slug)
    const api = await start("api", env)
    try {
      await subscribersToExport(api.url, key)
      await exportsSubscribers(env, slug, checkOnce("postgres"))
    } finally {
      expect(await api.stop()).toBe(0)
    }
  }, 120_000)
})
