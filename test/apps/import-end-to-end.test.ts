import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { callApi, run, type Running, start, startWorker } from "../support/processes.js"
import { postgresForProcesses as postgres } from "../support/servers.js"
import { waitUntil } from "../support/webhook-receiver.js"

/**
 * Imports sent over HTTP through the processes an operator runs, on PostgreSQL: the API keeps the
 * file and the workers run it. A worker killed halfway leaves the import to another once its lease
 * runs out; a worker told to stop finishes its batch and hands the import back at once. Either
 * way the import ends with every row counted once and every subscriber there once.
 */

interface Import {
  readonly id: string
  readonly status: string
  readonly records_done: number
  readonly counts: Record<string, number>
  readonly problem_count: number
  readonly started_at: string | null
}

/** Rows enough for a worker to be stopped halfway through. */
const ROWS = 60_000

const csvOf = (prefix: string) =>
  `email,first_name,tags\n${Array.from({ length: ROWS }, (_, i) => `${prefix}-${i}@example.com,Reader ${i},${i % 3 === 0 ? "Weekly" : ""}`).join("\n")}\n`

describe.skipIf(!postgres.available)(postgres.label, () => {
  let env: Record<string, string>
  let api: Running
  let key: string
  let database: pg.Client

  beforeAll(async () => {
    // The shortest lease there may be, so that a killed worker's import is taken over soon.
    env = { DATABASE_URL: await postgres.database("imports"), WORKER_LEASE_SECONDS: "12" }
    api = await start("api", env)
    const slug = `imports-${Date.now().toString(36)}`
    const created = await run("cli", ["org", "create", "--name", "Imports", "--slug", slug, "--tier", "enterprise"], env)
    expect(created.code, created.stderr).toBe(0)
    const issued = await run("cli", ["api-key", "create", "--org", slug, "--name", "imports", "--scopes", "*"], env)
    expect(issued.code, issued.stderr).toBe(0)
    key = (JSON.parse(issued.stdout) as { key: string }).key
    database = new pg.Client({ connectionString: env.DATABASE_URL })
    await database.connect()
  }, 60_000)

  afterAll(async () => {
    await database?.end()
    if (api !== undefined) expect(await api.stop()).toBe(0)
  })

  const upload = async (prefix: string) => {
    const response = await fetch(`${api.url}/api/v1/subscribers/imports?file_name=${prefix}.csv`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "text/csv" },
      body: csvOf(prefix)
    })
    const body = await response.json() as Import
    expect(response.status, JSON.stringify(body)).toBe(202)
    return response.headers.get("location")!
  }

  const importAt = async (location: string) => (await callApi<Import>(`${api.url}${location}`, key, "GET")).body!

  /** What the database holds of the import's subscribers: how many, and how many addresses twice. */
  const subscribersOf = async (prefix: string) => {
    const { rows } = await database.query<{ count: number; twice: number }>(
      `SELECT count(*)::integer AS count, (count(*) - count(DISTINCT email_key))::integer AS twice
       FROM subscribers WHERE email_key LIKE $1`,
      [`${prefix}-%`]
    )
    return rows[0]!
  }

  /** Waits until the import has a batch done, so that the worker is halfway. */
  const halfway = (location: string) =>
    waitUntil(async () => {
      const job = await importAt(location)
      expect(job.status, JSON.stringify(job)).not.toBe("completed")
      return job.status === "running" && job.records_done > 0
    }, "a batch of the import done", 30_000)

  /** `worker health --max-lag 0`: its verdict on imports. */
  const importsHealth = async () => {
    const checked = await run("cli", ["worker", "health", "--max-lag", "0"], env)
    const report = JSON.parse(checked.stdout) as {
      readonly overdue: ReadonlyArray<{ readonly work: string; readonly lag_seconds: number }>
      readonly imports: { readonly unfinished: number; readonly due: number; readonly oldest_due_age_seconds: number | null }
    }
    return { code: checked.code, stderr: checked.stderr, overdue: report.overdue, imports: report.imports }
  }

  const expectWhole = async (location: string, prefix: string) => {
    const done = await importAt(location)
    expect(done).toMatchObject({
      status: "completed",
      records_done: ROWS + 1,
      counts: { rows: ROWS, created: ROWS, updated: 0, unchanged: 0, failed: 0, kept_status: 0 },
      problem_count: 0
    })
    expect(await subscribersOf(prefix)).toEqual({ count: ROWS, twice: 0 })
    return done
  }

  it("a worker killed halfway leaves the import to another once its lease runs out; every row is counted once", async () => {
    const location = await upload("killed")
    const first = await startWorker(env)
    let second: Awaited<ReturnType<typeof startWorker>> | undefined
    try {
      await halfway(location)
      await first.kill()
      const left = await importAt(location)
      expect(left.status).toBe("running")
      // The dead worker's import is held until its lease runs out, then `worker health` calls it overdue.
      const held = await importsHealth()
      expect(held.imports).toMatchObject({ unfinished: 1, due: 0, oldest_due_age_seconds: null })
      let overdue = held
      await waitUntil(async () => {
        overdue = await importsHealth()
        return overdue.imports.due === 1
      }, "the killed worker's lease run out", 30_000)
      expect(overdue.code).toBe(1)
      expect(overdue.overdue).toContainEqual({ work: "imports", lag_seconds: expect.any(Number) })
      expect(overdue.stderr).toMatch(/imports waited \d+ s/)
      // The second worker starts only once the killed worker's lease has run out (the health check said so).
      second = await startWorker(env)
      await waitUntil(async () => (await importAt(location)).status === "completed", "the import completed by the second worker", 90_000)
      const done = await expectWhole(location, "killed")
      expect(done.started_at).toBe(left.started_at)
    } finally {
      await first.kill()
      if (second !== undefined) expect(await second.stop()).toBe(0)
    }
  }, 180_000)

  it("a worker told to stop finishes its batch and hands the import back at once; the next worker finishes it", async () => {
    const location = await upload("stopped")
    const first = await startWorker(env)
    let second: Awaited<ReturnType<typeof startWorker>> | undefined
    try {
      await halfway(location)
      expect(await first.stop()).toBe(0)
      const handedBack = await importAt(location)
      expect(handedBack.status).toBe("queued")
      expect(handedBack.records_done).toBeGreaterThan(0)
      expect(handedBack.counts.created).toBe(handedBack.records_done - 1)
      second = await startWorker(env)
      // Taken at once, not after a lease.
      await waitUntil(async () => (await importAt(location)).status !== "queued", "the import taken by the second worker", 5_000)
      await waitUntil(async () => (await importAt(location)).status === "completed", "the import completed", 90_000)
      await expectWhole(location, "stopped")
    } finally {
      await first.kill()
      if (second !== undefined) expect(await second.stop()).toBe(0)
    }
  }, 180_000)
})
