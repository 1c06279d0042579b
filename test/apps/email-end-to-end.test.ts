import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { postgresForProcesses as postgres } from "../support/servers.js"
import { callApi, freePort, run, type Running, type RunningWorker, start, startWorker } from "../support/processes.js"
import { type ResendApi, startResendApi } from "../support/resend-api.js"
import { waitUntil } from "../support/webhook-receiver.js"

/**
 * Single emails through the processes an operator runs, handed to a local server that speaks
 * Resend's API: `npm start` on its embedded database, and on PostgreSQL one API with worker
 * processes that are woken at once, killed, and run side by side. How the worker meets a provider
 * that fails is test/application/email-delivery.test.ts's.
 *
 * That a send is handed on without waiting for the worker's idle pause to run out is seen in the
 * worker's own count of pauses ended by a signal (`roster_worker_wake_ups_total`), which stands
 * still while nothing is sent and moves with the send; the time limits here only catch a hang.
 */

interface Email {
  readonly id: string
  readonly status: string
  readonly provider_message_id: string | null
  readonly attempts: number
  readonly history: ReadonlyArray<{ readonly type: string; readonly at: string }>
}

type Answer = { readonly [field: string]: unknown } & { readonly id?: string; readonly key?: string; readonly email?: string }

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Sends one transactional email to a new subscriber; the email's id. */
const sendOne = async (base: string, key: string, address: string) => {
  const created = await callApi<Answer>(`${base}/api/v1/subscribers`, key, "POST", { email: address })
  expect(created.status, JSON.stringify(created.body)).toBe(201)
  const sent = await callApi<Email>(`${base}/api/v1/emails/send`, key, "POST", {
    to: address,
    kind: "transactional",
    subject: "Your receipt",
    text: "Thanks for your order."
  })
  expect(sent.status, JSON.stringify(sent.body)).toBe(202)
  return sent.body!.id
}

const emailOf = async (base: string, key: string, id: string) =>
  (await callApi<Email>(`${base}/api/v1/emails/${id}`, key, "GET")).body!

const METRICS_TOKEN = "email-end-to-end-metrics-token"

/** How many pauses of the email job a signal has ended, read from the metrics at `url`. */
const wakeUps = async (url: string): Promise<number> => {
  const answer = await fetch(url, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
  const text = await answer.text()
  expect(answer.status, text).toBe(200)
  return Number(/^roster_worker_wake_ups_total\{job="email delivery"\} (\d+)/m.exec(text)?.[1] ?? 0)
}

/**
 * The count once it stands still: read again after a pause longer than the email job's longest
 * idle pause (2 s), by when every lane has taken up any signal left from earlier sends.
 */
const settledWakeUps = async (url: string): Promise<number> => {
  let last = await wakeUps(url)
  for (let i = 0; i < 10; i++) {
    await sleep(2_500)
    const now = await wakeUps(url)
    if (now === last) return now
    last = now
  }
  throw new Error("the worker's wake-ups did not settle while nothing was sent")
}

describe("email on the embedded database", () => {
  it("npm start hands a single send to Resend as soon as it is queued: the send wakes the worker", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "roster-email-"))
    const resend = await startResendApi()
    let app: Running | undefined
    try {
      app = await start("start", {
        DATA_DIR: dataDir,
        RESEND_API_KEY: resend.apiKey,
        RESEND_BASE_URL: resend.url,
        METRICS_TOKEN
      })
      const testKey = app.output().match(/svc_test_[0-9A-Za-z]{32,}/)?.[0]
      expect(testKey, app.output()).toBeDefined()
      // The printed key is a test key, whose email is sandboxed: a live key sends.
      const live = await callApi<Answer>(`${app.url}/api/v1/api-keys`, testKey!, "POST", { name: "live", scopes: ["*"], environment: "live" })
      expect(live.status, JSON.stringify(live.body)).toBe(201)
      const key = live.body!.key!
      // Warm: the first request of a process pays for loading code.
      await sendOne(app.url, key, "warm@example.com")
      await resend.waitForAccepted(1, 30_000)

      const before = await settledWakeUps(`${app.url}/metrics`)
      const id = await sendOne(app.url, key, "ada@example.com")
      await resend.waitForAccepted(2, 30_000)
      expect(await wakeUps(`${app.url}/metrics`)).toBeGreaterThan(before)
      const [, email] = resend.accepted()
      expect(email).toMatchObject({ to: "ada@example.com", subject: "Your receipt", idempotencyKey: id, batched: false })
      expect(email!.from).toBe('"Default" <noreply@localhost>')
      await waitUntil(async () => (await emailOf(app!.url, key, id)).status === "sent", "the email recorded as sent", 5_000)
      expect((await emailOf(app.url, key, id)).provider_message_id).toBe(email!.id)

      const sandboxed = await sendOne(app.url, testKey!, "grace@example.com")
      expect((await emailOf(app.url, testKey!, sandboxed)).status).toBe("sandboxed")
      await sleep(500)
      expect(resend.accepted().map((e) => e.to)).not.toContain("grace@example.com")
    } finally {
      if (app !== undefined) expect(await app.stop()).toBe(0)
      await resend.close()
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 180_000)
})

describe.skipIf(!postgres.available)(postgres.label, () => {
  let resend: ResendApi
  let env: Record<string, string>
  let api: Running

  const organization = async (name: string) => {
    const slug = `email-${name}-${Date.now().toString(36)}`
    const created = await run("cli", ["org", "create", "--name", `Email ${name}`, "--slug", slug, "--tier", "enterprise"], env)
    expect(created.code, created.stderr).toBe(0)
    const issued = await run("cli", ["api-key", "create", "--org", slug, "--name", "email", "--scopes", "*"], env)
    expect(issued.code, issued.stderr).toBe(0)
    return (JSON.parse(issued.stdout) as Answer).key!
  }

  /** Sends `count` emails, `concurrency` at a time; their ids by recipient. */
  const sendMany = async (key: string, prefix: string, count: number, concurrency = 8) => {
    const ids = new Map<string, string>()
    let next = 0
    const lane = async () => {
      while (next < count) {
        const address = `${prefix}-${next++}@example.com`
        ids.set(address, await sendOne(api.url, key, address))
      }
    }
    await Promise.all(Array.from({ length: concurrency }, lane))
    return ids
  }

  /** Each address the stand-in took, with how many times. */
  const acceptedTo = (prefix: string) => {
    const counts = new Map<string, number>()
    for (const email of resend.accepted()) if (email.to.startsWith(`${prefix}-`)) counts.set(email.to, (counts.get(email.to) ?? 0) + 1)
    return counts
  }

  /** Of these emails, those a worker holds, with when its lease on each runs out (ms). */
  const leasesOf = async (ids: ReadonlyArray<string>): Promise<ReadonlyMap<string, number>> => {
    const client = new pg.Client({ connectionString: env.DATABASE_URL })
    await client.connect()
    try {
      const { rows } = await client.query<{ id: string; next_attempt_at: Date }>(
        "SELECT id, next_attempt_at FROM messages WHERE id = ANY($1::uuid[]) AND lease_token IS NOT NULL",
        [ids]
      )
      return new Map(rows.map((row) => [row.id, row.next_attempt_at.getTime()]))
    } finally {
      await client.end()
    }
  }

  beforeAll(async () => {
    resend = await startResendApi()
    env = { DATABASE_URL: await postgres.database("email"), RESEND_API_KEY: resend.apiKey, RESEND_BASE_URL: resend.url, EMAIL_PROVIDER_RATE: "50" }
    api = await start("api", env)
  }, 60_000)

  afterAll(async () => {
    if (api !== undefined) expect(await api.stop()).toBe(0)
    await resend.close()
  })

  it("a single send reaches Resend as soon as it is queued: the API wakes the worker through PostgreSQL", async () => {
    const key = await organization("wake")
    const port = await freePort()
    const metrics = `http://127.0.0.1:${port}/metrics`
    const worker = await startWorker({ ...env, WORKER_METRICS_PORT: String(port), METRICS_TOKEN })
    try {
      await sendOne(api.url, key, "wake-warm@example.com")
      await waitUntil(async () => acceptedTo("wake").size === 1, "the first email taken", 30_000)
      const before = await settledWakeUps(metrics)
      await sendOne(api.url, key, "wake-0@example.com")
      await waitUntil(async () => acceptedTo("wake").size === 2, "the email taken", 30_000)
      // The worker process heard the API's signal, through PostgreSQL, and ended a pause for it.
      expect(await wakeUps(metrics)).toBeGreaterThan(before)
    } finally {
      expect(await worker.stop()).toBe(0)
    }
  }, 60_000)

  it("a worker killed after Resend took its batch loses nothing and sends nothing twice", async () => {
    const key = await organization("kill")
    const count = 30
    // The API holds the emails while no worker runs; then one batch goes out, and its answer never comes.
    const ids = await sendMany(key, "kill", count)
    resend.script("accept-and-hold")
    const leaseEnv = { ...env, WORKER_LEASE_SECONDS: "12" }
    // Counted before the worker starts: its batch may be taken before `startWorker` returns.
    const acceptedBefore = resend.accepted().length
    const workerA = await startWorker(leaseEnv)
    let workerB: RunningWorker | undefined
    try {
      await resend.waitForAccepted(acceptedBefore + 1, 15_000)
      await sleep(300)
      await workerA.kill()
      const first = acceptedTo("kill")
      expect(first.size).toBeGreaterThan(0)
      const heldKeys = new Set(resend.accepted().filter((e) => e.to.startsWith("kill-")).map((e) => e.idempotencyKey))
      resend.dropHeld()
      const killedAt = Date.now()
      // What A holds, with the end of its lease on each.
      const heldByA = await leasesOf([...ids.values()])
      expect(heldByA.size).toBeGreaterThan(0)

      workerB = await startWorker(leaseEnv)
      await waitUntil(async () => {
        const emails = await Promise.all([...ids.values()].map((id) => emailOf(api.url, key, id)))
        return emails.every((email) => email.status === "sent")
      }, "every email recorded as sent", 30_000)
      // What A held was sent again only once A's lease on it had run out.
      for (const [id, leasedUntil] of heldByA) {
        const sent = (await emailOf(api.url, key, id)).history.find((event) => event.type === "sent")
        expect(Date.parse(sent!.at), id).toBeGreaterThanOrEqual(leasedUntil)
      }

      // Each address once: the batch went again under its own key, and Resend answered it from memory.
      const counts = acceptedTo("kill")
      expect(counts.size).toBe(count)
      expect([...counts.values()].every((n) => n === 1)).toBe(true)
      const providerIds = new Set(resend.accepted().filter((e) => e.to.startsWith("kill-")).map((e) => e.id))
      for (const id of ids.values()) {
        const email = await emailOf(api.url, key, id)
        expect(providerIds.has(email.provider_message_id!)).toBe(true)
      }
      // The call A never heard back from went again under its own key, and was answered from memory.
      const sends = resend.calls().filter((c) => c.status === 200 && c.idempotencyKey !== undefined)
      const held = sends.find((c) => c.at < killedAt && heldKeys.has(c.idempotencyKey!))
      expect(held, "A's held call").toBeDefined()
      expect(sends.filter((c) => c !== held && c.idempotencyKey === held!.idempotencyKey).length).toBeGreaterThan(0)
    } finally {
      await workerA.kill()
      if (workerB !== undefined) expect(await workerB.stop()).toBe(0)
    }
  }, 90_000)

  it("two workers side by side send each of 120 emails once, in batches", async () => {
    const key = await organization("pair")
    const workers = await Promise.all([startWorker(env), startWorker(env)])
    try {
      const ids = await sendMany(key, "pair", 120, 12)
      await waitUntil(async () => acceptedTo("pair").size === 120, "120 emails taken", 30_000)
      // A second send of an email would come close behind the first.
      await sleep(1_000)
      const counts = acceptedTo("pair")
      expect([...counts.values()].filter((n) => n !== 1)).toEqual([])
      expect(resend.accepted().filter((e) => e.to.startsWith("pair-") && e.batched).length).toBeGreaterThan(0)
      await waitUntil(async () => {
        const sample = await Promise.all([...ids.values()].map((id) => emailOf(api.url, key, id)))
        return sample.every((email) => email.status === "sent")
      }, "the emails recorded as sent", 10_000)
    } finally {
      expect(await Promise.all(workers.map((worker) => worker.stop()))).toEqual([0, 0])
    }
  }, 90_000)
})
