import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { postgresForProcesses as postgres, redis, whenRunning } from "../support/servers.js"
import { callApi, run, type Running, type RunningWorker, start, startWorker } from "../support/processes.js"
import { type ResendApi, startResendApi } from "../support/resend-api.js"
import { waitUntil } from "../support/webhook-receiver.js"

/**
 * Campaigns through the processes an operator runs, on PostgreSQL, to a local server that speaks
 * Resend's API: a worker killed mid-campaign, two workers sharing one, a cancel midway and a
 * provider that answers 429 first. Each recipient gets their email exactly once.
 */

type Answer = { readonly [field: string]: unknown } & { readonly id?: string; readonly key?: string; readonly status?: string }

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe.skipIf(!postgres.available)(postgres.label, () => {
  let resend: ResendApi
  let env: Record<string, string>
  let api: Running
  let pool: pg.Pool

  /** An organization with a live key and `count` active subscribers `<prefix>-<i>@example.com` (made by SQL). */
  const organization = async (prefix: string, count: number) => {
    const slug = `campaign-${prefix}-${Date.now().toString(36)}`
    const created = await run("cli", ["org", "create", "--name", `Campaign ${prefix}`, "--slug", slug, "--tier", "enterprise"], env)
    expect(created.code, created.stderr).toBe(0)
    const issued = await run("cli", ["api-key", "create", "--org", slug, "--name", "campaigns", "--scopes", "*"], env)
    expect(issued.code, issued.stderr).toBe(0)
    const id = (await pool.query<{ id: string }>("SELECT id FROM organizations WHERE slug = $1", [slug])).rows[0]!.id
    await pool.query(
      `INSERT INTO subscribers (id, organization_id, email, email_key, status, metadata, first_name, created_at, updated_at)
       SELECT gen_random_uuid(), $1, $2 || '-' || g || '@example.com', $2 || '-' || g || '@example.com', 'active', '{}',
              'Reader ' || g, now() - interval '1 minute', now()
       FROM generate_series(1, $3::int) g`,
      [id, prefix, count]
    )
    return (JSON.parse(issued.stdout) as Answer).key!
  }

  const campaign = async (key: string) => {
    const created = await callApi<Answer>(`${api.url}/api/v1/campaigns`, key, "POST", {
      name: "Issue",
      kind: "marketing",
      subject: "Hello {{ subscriber.first_name }}",
      text: "News. Unsubscribe: {{ unsubscribe_url }}"
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    return created.body!.id!
  }

  const act = async (key: string, id: string, action: string) => {
    const answer = await callApi<Answer>(`${api.url}/api/v1/campaigns/${id}/${action}`, key, "POST")
    expect(answer.status, JSON.stringify(answer.body)).toBe(200)
    return answer.body!
  }

  const statusOf = async (key: string, id: string) => (await callApi<Answer>(`${api.url}/api/v1/campaigns/${id}`, key, "GET")).body!

  /** Each address the stand-in took, with how many times. */
  const acceptedTo = (prefix: string) => {
    const counts = new Map<string, number>()
    for (const email of resend.accepted()) if (email.to.startsWith(`${prefix}-`)) counts.set(email.to, (counts.get(email.to) ?? 0) + 1)
    return counts
  }

  const eachOnce = (prefix: string, count: number) => {
    const counts = acceptedTo(prefix)
    expect(counts.size).toBe(count)
    expect([...counts.values()].filter((n) => n !== 1)).toEqual([])
  }

  beforeAll(async () => {
    resend = await startResendApi()
    const url = await postgres.database("campaigns")
    pool = new pg.Pool({ connectionString: url, max: 2 })
    env = { DATABASE_URL: url, RESEND_API_KEY: resend.apiKey, RESEND_BASE_URL: resend.url, EMAIL_PROVIDER_RATE: "4" }
    api = await start("api", env)
  }, 60_000)

  afterAll(async () => {
    if (api !== undefined) expect(await api.stop()).toBe(0)
    await pool?.end()
    await resend.close()
  })

  it("a worker killed mid-campaign: another finishes it without sending any email twice or skipping one", async () => {
    const key = await organization("kill", 450)
    const id = await campaign(key)
    const leaseEnv = { ...env, WORKER_LEASE_SECONDS: "12" }
    const workerA = await startWorker(leaseEnv)
    let workerB: RunningWorker | undefined
    try {
      // The second batch is taken by Resend, and its answer never comes: the worker dies holding it.
      // Calls after it get no answer either, so worker A cannot hand over the rest before the kill.
      const before = resend.accepted().length
      await act(key, id, "send")
      await resend.waitForAccepted(before + 100, 15_000)
      resend.script("accept-and-hold")
      resend.script("hold", 10)
      await resend.waitForAccepted(before + 200, 15_000)
      await sleep(200)
      await workerA.kill()
      resend.dropHeld()
      resend.unscript()
      expect(acceptedTo("kill").size).toBe(200)

      workerB = await startWorker(leaseEnv)
      await waitUntil(async () => (await statusOf(key, id)).status === "sent", "the campaign sent", 45_000)
      eachOnce("kill", 450)
      const done = await statusOf(key, id)
      expect(done.stats).toMatchObject({ recipients: 450, sent: 450, queued: 0, failed: 0 })
    } finally {
      await workerA.kill()
      if (workerB !== undefined) expect(await workerB.stop()).toBe(0)
    }
  }, 90_000)

  it("two workers share one campaign, each email once", async () => {
    const key = await organization("pair", 800)
    const id = await campaign(key)
    const workers = await Promise.all([startWorker(env), startWorker(env)])
    try {
      await act(key, id, "send")
      await waitUntil(async () => (await statusOf(key, id)).status === "sent", "the campaign sent", 45_000)
      eachOnce("pair", 800)
    } finally {
      expect(await Promise.all(workers.map((worker) => worker.stop()))).toEqual([0, 0])
    }
  }, 90_000)

  it("a campaign to a segment reaches, through the worker, whom the segment's filter holds when sending starts, each once", async () => {
    const key = await organization("segment", 300)
    // A third are on the pro plan; the segment leaves out those whose address ends in 0.
    await pool.query(
      `UPDATE subscribers SET metadata = '{"plan": "pro"}'
       WHERE email LIKE 'segment-%' AND split_part(split_part(email, '-', 2), '@', 1)::integer % 3 = 0`
    )
    const segment = await callApi<Answer>(`${api.url}/api/v1/segments`, key, "POST", {
      name: "Pro",
      filter: {
        all: [
          { field: "metadata.plan", op: "eq", value: "pro" },
          { not: { field: "email", op: "ends_with", value: "0@example.com" } }
        ]
      }
    })
    expect(segment.status, JSON.stringify(segment.body)).toBe(201)
    const created = await callApi<Answer>(`${api.url}/api/v1/campaigns`, key, "POST", {
      name: "Pro issue",
      subject: "Hello {{ subscriber.first_name }}",
      text: "News. Unsubscribe: {{ unsubscribe_url }}",
      audience: { segment_id: segment.body!.id }
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const id = created.body!.id!
    expect(await act(key, id, "count-recipients")).toEqual({ recipients: 90 })
    const worker = await startWorker(env)
    try {
      await act(key, id, "send")
      // Joining the segment after the start changes nothing.
      await pool.query(`UPDATE subscribers SET metadata = '{"plan": "pro"}' WHERE email LIKE 'segment-%'`)
      await waitUntil(async () => (await statusOf(key, id)).status === "sent", "the campaign sent", 45_000)
      eachOnce("segment", 90)
      for (const address of acceptedTo("segment").keys()) {
        const n = Number(address.slice("segment-".length, address.indexOf("@")))
        expect(n % 3 === 0 && n % 10 !== 0, address).toBe(true)
      }
      expect((await statusOf(key, id)).stats).toMatchObject({ recipients: 90, sent: 90, failed: 0 })
    } finally {
      expect(await worker.stop()).toBe(0)
    }
  }, 60_000)

  it("cancel midway stops new sends: the unsent emails are withdrawn and nothing more goes out", async () => {
    const key = await organization("cancel", 1_000)
    const id = await campaign(key)
    const worker = await startWorker({ ...env, EMAIL_PROVIDER_RATE: "2" })
    try {
      await act(key, id, "send")
      await waitUntil(async () => acceptedTo("cancel").size >= 100, "the first batch taken", 15_000)
      const cancelled = await act(key, id, "cancel")
      expect(cancelled.status).toBe("cancelled")
      // What was in flight at the cancel ends sent; the rest is withdrawn.
      await waitUntil(async () => {
        const stats = (await statusOf(key, id)).stats as { queued: number; sent: number }
        return stats.queued === 0 && stats.sent === acceptedTo("cancel").size
      }, "the unsent emails withdrawn", 30_000)
      const atCancel = acceptedTo("cancel").size
      expect(atCancel).toBeLessThan(1_000)
      // At 2 calls a second the worker would have taken more batches by now, were any left to it.
      await sleep(2_000)
      expect(acceptedTo("cancel").size).toBe(atCancel)
      expect(((await statusOf(key, id)).stats as { sent: number }).sent).toBe(atCancel)
    } finally {
      expect(await worker.stop()).toBe(0)
    }
  }, 60_000)

  it.skipIf(!redis.available)(whenRunning(redis, "429s halve the pace every worker keeps to, and calls taken bring it back; each email once"), async () => {
    // The pace lives beside the workers' shared hold, in Redis: a database of this test's own.
    const shared = new URL(redis.url!)
    shared.pathname = "/13"
    const key = await organization("pace", 2_000)
    const id = await campaign(key)
    resend.script({ status: 429, name: "rate_limit_exceeded", message: "Too many requests", retryAfterSeconds: 1 }, 3)
    const workers = await Promise.all([1, 2].map(() => startWorker({ ...env, REDIS_URL: shared.toString() })))
    try {
      const before = resend.calls().length
      await act(key, id, "send")
      await waitUntil(async () => (await statusOf(key, id)).status === "sent", "the campaign sent", 80_000)
      eachOnce("pace", 2_000)
      const calls = resend.calls().slice(before)
      expect(calls.filter((call) => call.status === 429)).toHaveLength(3)
      const logs = workers.map((worker) => worker.output()).join("\n")
      const slowed = /the email provider answered 429: sending slows to ([\d.]+) calls? a second/.exec(logs)
      expect(slowed, logs).not.toBeNull()
      expect(Number(slowed![1])).toBeLessThanOrEqual(2)
      expect(logs).toContain("sending is back to 4 calls a second")
      // Slowed down: the calls right after the 429s came further apart than four a second allows.
      const lastRefused = calls.findLastIndex((call) => call.status === 429)
      const after = calls.slice(lastRefused + 1, lastRefused + 3).map((call) => call.at)
      expect(after[1]! - after[0]!).toBeGreaterThanOrEqual(400)
    } finally {
      expect(await Promise.all(workers.map((worker) => worker.stop()))).toEqual([0, 0])
    }
  }, 120_000)

  it("a provider that answers 429 first slows the campaign down; it ends sent, each email once", async () => {
    const key = await organization("busy", 250)
    const id = await campaign(key)
    resend.script({ status: 429, name: "rate_limit_exceeded", message: "Too many requests", retryAfterSeconds: 1 }, 2)
    const worker = await startWorker(env)
    try {
      const before = resend.calls().length
      await act(key, id, "send")
      await waitUntil(async () => (await statusOf(key, id)).status === "sent", "the campaign sent", 45_000)
      eachOnce("busy", 250)
      expect(resend.calls().slice(before).filter((call) => call.status === 429)).toHaveLength(2)
    } finally {
      expect(await worker.stop()).toBe(0)
    }
  }, 60_000)
})
