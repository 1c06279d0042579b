import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { Webhook } from "standardwebhooks"
import { postgresForProcesses as postgres } from "../support/servers.js"
import { callApi, run, type Running, type RunningWorker, start, startWorker } from "../support/processes.js"
import { type ReceivedRequest, startWebhookReceiver, waitUntil } from "../support/webhook-receiver.js"

/**
 * Outgoing webhooks through the processes an operator runs: `npm start` on its embedded database,
 * and on PostgreSQL one API with worker processes that are started, stopped and killed, sending to
 * receivers on this machine. Every test has its own organization and its own receivers, so what a
 * receiver got is that test's alone, whichever worker sent it.
 */

/** The fields these tests read from JSON answers. */
type Answer = { readonly [field: string]: unknown } & {
  readonly id?: string
  readonly key?: string
  readonly signing_secret?: string
  readonly items?: ReadonlyArray<Delivery>
  readonly next_cursor?: string | null
}

interface Attempt {
  readonly attempt: number
  readonly status: "succeeded" | "failed"
  readonly response_status_code: number | null
  readonly error: string | null
  readonly next_attempt_at: string | null
}

interface Delivery {
  readonly id: string
  readonly event_id: string
  readonly status: "pending" | "succeeded" | "failed"
  readonly attempt_count: number
  readonly next_attempt_at: string | null
  readonly attempts: ReadonlyArray<Attempt>
}

/** What every receiver gets, as DESIGN.md §6 has it. */
interface Payload {
  readonly id: string
  readonly type: string
  readonly created_at: string
  readonly organization_id: string
  readonly data: { readonly subscriber: { readonly id: string; readonly email: string } }
}

const send = (url: string, key: string, method: string, body?: unknown) => callApi<Answer>(url, key, method, body)

/** An endpoint for `url` hearing `subscriber.created`; its id and signing secret. */
const registerWebhook = async (base: string, key: string, url: string) => {
  const created = await send(`${base}/api/v1/webhooks`, key, "POST", { url, events: ["subscriber.created"] })
  expect(created.status, JSON.stringify(created.body)).toBe(201)
  return { id: created.body!.id!, secret: created.body!.signing_secret! }
}

/** Creates `count` subscribers, `concurrency` requests at a time; their ids. */
const createSubscribers = async (base: string, key: string, prefix: string, count: number, concurrency = 1) => {
  const ids: Array<string> = []
  let next = 0
  const lane = async () => {
    while (next < count) {
      const n = next++
      const created = await send(`${base}/api/v1/subscribers`, key, "POST", { email: `${prefix}-${n}@example.com` })
      expect(created.status, JSON.stringify(created.body)).toBe(201)
      ids.push(created.body!.id!)
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane))
  return ids
}

/** Every delivery of an endpoint, through the API, page after page. */
const deliveriesOf = async (base: string, key: string, webhookId: string) => {
  const all: Array<Delivery> = []
  let cursor: string | null = null
  do {
    const query: string = cursor === null ? "limit=100" : `limit=100&cursor=${encodeURIComponent(cursor)}`
    const page = await send(`${base}/api/v1/webhooks/${webhookId}/deliveries?${query}`, key, "GET")
    expect(page.status, JSON.stringify(page.body)).toBe(200)
    all.push(...page.body!.items!)
    cursor = page.body!.next_cursor ?? null
  } while (cursor !== null)
  return all
}

/** Checks the Standard Webhooks signature as a receiver would, and answers the payload. */
const verified = (secret: string, request: ReceivedRequest) => new Webhook(secret).verify(request.rawBody, request.headers) as Payload

const groupBy = <A>(items: ReadonlyArray<A>, key: (item: A) => string): Map<string, Array<A>> => {
  const groups = new Map<string, Array<A>>()
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item])
  return groups
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe("outgoing webhooks on the embedded database", () => {
  it("npm start delivers a signed subscriber.created to an endpoint registered over HTTP", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "roster-webhooks-"))
    const receiver = await startWebhookReceiver()
    let app: Running | undefined
    try {
      app = await start("start", { DATA_DIR: dataDir, WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" })
      const key = app.output().match(/svc_test_[0-9A-Za-z]{32,}/)?.[0]
      expect(key, app.output()).toBeDefined()
      const webhook = await registerWebhook(app.url, key!, receiver.url)
      expect(webhook.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/)
      const [subscriberId] = await createSubscribers(app.url, key!, "embedded", 1)

      await receiver.waitForIds(1, 20_000)
      const [request] = receiver.requests()
      expect(request!.method).toBe("POST")
      expect(request!.headers["content-type"]).toBe("application/json")
      const payload = verified(webhook.secret, request!)
      expect(Object.keys(payload).sort()).toEqual(["created_at", "data", "id", "organization_id", "type"])
      expect(payload).toMatchObject({
        id: request!.webhookId,
        type: "subscriber.created",
        data: { subscriber: { id: subscriberId, email: "embedded-0@example.com" } }
      })
      expect(payload.organization_id).toMatch(/^[0-9a-f-]{36}$/)
      expect(new Date(payload.created_at).toISOString()).toBe(payload.created_at)
      // Signed with another secret, the same message does not verify.
      expect(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString("base64")}`).verify(request!.rawBody, request!.headers))
        .toThrow()
    } finally {
      if (app !== undefined) expect(await app.stop()).toBe(0)
      await receiver.close()
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 60_000)
})

/** The local ports of `pid`'s TCP connections to 127.0.0.1:`port` (Linux; empty elsewhere). */
const connectionsTo = (pid: number, port: number): ReadonlyArray<number> => {
  try {
    const inodes = new Set<string>()
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      const link = (() => {
        try {
          return readlinkSync(`/proc/${pid}/fd/${fd}`)
        } catch {
          return ""
        }
      })()
      const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1]
      if (inode !== undefined) inodes.add(inode)
    }
    const target = `0100007F:${port.toString(16).toUpperCase().padStart(4, "0")}`
    return readFileSync("/proc/net/tcp", "utf8").split("\n").slice(1).flatMap((line) => {
      const fields = line.trim().split(/\s+/)
      const [local, remote, inode] = [fields[1], fields[2], fields[9]]
      return remote === target && inode !== undefined && inodes.has(inode) ? [parseInt(local!.split(":")[1]!, 16)] : []
    })
  } catch {
    return []
  }
}

const canSeeConnections = (() => {
  try {
    readFileSync("/proc/net/tcp", "utf8")
    return true
  } catch {
    return false
  }
})()

describe.skipIf(!postgres.available)(postgres.label, () => {
  let env: Record<string, string>
  let api: Running

  /** A new organization, on a plan whose request limit leaves room for hundreds of requests, and a key of it. */
  const organization = async (name: string) => {
    const slug = `webhooks-${name}-${Date.now().toString(36)}`
    const created = await run("cli", ["org", "create", "--name", `Webhooks ${name}`, "--slug", slug, "--tier", "enterprise"], env)
    expect(created.code, created.stderr).toBe(0)
    const issued = await run("cli", ["api-key", "create", "--org", slug, "--name", "webhooks", "--scopes", "*"], env)
    expect(issued.code, issued.stderr).toBe(0)
    return (JSON.parse(issued.stdout) as Answer).key!
  }

  beforeAll(async () => {
    env = { DATABASE_URL: await postgres.database("webhooks"), WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" }
    // One API for the file; it migrates the database before any worker starts.
    api = await start("api", env)
  }, 60_000)

  afterAll(async () => {
    if (api !== undefined) expect(await api.stop()).toBe(0)
  })

  /** The endpoint's deliveries a worker holds, by event id, with when its lease on each runs out (ms). */
  const leasesOf = async (endpointId: string): Promise<ReadonlyMap<string, number>> => {
    const client = new pg.Client({ connectionString: env.DATABASE_URL })
    await client.connect()
    try {
      const { rows } = await client.query<{ event_id: string; next_attempt_at: Date }>(
        "SELECT event_id, next_attempt_at FROM webhook_deliveries WHERE endpoint_id = $1 AND lease_token IS NOT NULL",
        [endpointId]
      )
      return new Map(rows.map((row) => [row.event_id, row.next_attempt_at.getTime()]))
    } finally {
      await client.end()
    }
  }

  it("a receiver that fails at first gets every event, each under one webhook-id across attempts", async () => {
    const failures = 5
    const receiver = await startWebhookReceiver((request) => ({ status: request.number <= failures ? 503 : 200 }))
    const [key, worker] = await Promise.all([organization("retry"), startWorker(env)])
    try {
      const webhook = await registerWebhook(api.url, key, receiver.url)
      const subscribers = await createSubscribers(api.url, key, "retry", 5)

      // The first attempt of each is answered 503; the retry 5 s (± 10 %) later is answered 200.
      await receiver.waitForAnswered(5, 25_000)
      const requests = receiver.requests()
      const byId = groupBy(requests, (request) => request.webhookId)
      expect(byId.size).toBe(5)
      expect(new Set([...byId.values()].map((attempts) => verified(webhook.secret, attempts[0]!).data.subscriber.id)))
        .toEqual(new Set(subscribers))
      for (const [id, attempts] of byId) {
        expect(attempts.map((attempt) => attempt.answeredStatus)).toEqual([503, 200])
        for (const attempt of attempts) expect(verified(webhook.secret, attempt).id).toBe(id)
        expect(attempts[1]!.rawBody).toBe(attempts[0]!.rawBody)
        // 5 s less 10 % jitter, less what the first send took to arrive on a busy machine.
        expect(attempts[1]!.arrivedAt - attempts[0]!.arrivedAt).toBeGreaterThanOrEqual(4_000)
      }

      await waitUntil(async () => {
        const deliveries = await deliveriesOf(api.url, key, webhook.id)
        return deliveries.length === 5 && deliveries.every((delivery) => delivery.status === "succeeded")
      }, "every delivery recorded as succeeded", 5_000)
      for (const delivery of await deliveriesOf(api.url, key, webhook.id)) {
        expect(byId.has(delivery.event_id)).toBe(true)
        expect(delivery.attempt_count).toBe(2)
        expect(delivery.attempts.map((attempt) => [attempt.status, attempt.response_status_code]))
          .toEqual([["failed", 503], ["succeeded", 200]])
      }
    } finally {
      expect(await worker.stop()).toBe(0)
      await receiver.close()
    }
  }, 60_000)

  it("a worker killed mid-batch loses nothing: another sends what it held once its lease runs out", async () => {
    const count = 20
    const leaseEnv = { ...env, WORKER_LEASE_SECONDS: "12" }
    // Requests are held open, unanswered, until the worker is dead.
    const receiver = await startWebhookReceiver(() => ({ status: 200, hold: true }))
    const [key, workerA] = await Promise.all([organization("kill"), startWorker(leaseEnv)])
    let workerB: RunningWorker | undefined
    try {
      const webhook = await registerWebhook(api.url, key, receiver.url)
      await createSubscribers(api.url, key, "kill", count, 5)
      await receiver.waitForIds(1, 10_000)
      // Let the lanes take what they can, well within the 10 s delivery time-out.
      await sleep(1_000)
      await workerA.kill()
      const sentByA = new Map(receiver.requests().map((request) => [request.webhookId, request.arrivedAt]))
      const killedAt = Date.now()
      expect(sentByA.size).toBeGreaterThan(0)
      // What A holds, by event (the webhook-id), with the end of A's lease on it.
      const heldByA = await leasesOf(webhook.id)
      expect([...sentByA.keys()].filter((id) => !heldByA.has(id))).toEqual([])

      // A's connections died with it; from now on the receiver answers at once.
      receiver.dropHeld()
      receiver.script(() => ({ status: 200 }))
      workerB = await startWorker(leaseEnv)
      await receiver.waitForAnswered(count, 30_000)

      const answered = receiver.requests().filter((request) => request.answeredStatus === 200)
      expect(new Set(answered.map((request) => request.webhookId)).size).toBe(count)
      for (const request of answered) {
        // What A held came due for B only when A's lease on it ran out, whenever B was up.
        const leasedUntil = heldByA.get(request.webhookId)
        if (leasedUntil !== undefined) expect(request.arrivedAt).toBeGreaterThanOrEqual(leasedUntil)
        expect(request.arrivedAt).toBeGreaterThan(killedAt)
      }

      await waitUntil(async () => {
        const deliveries = await deliveriesOf(api.url, key, webhook.id)
        return deliveries.length === count && deliveries.every((delivery) => delivery.status === "succeeded")
      }, "every delivery listed as succeeded", 5_000)
      for (const delivery of await deliveriesOf(api.url, key, webhook.id)) {
        // A recorded nothing before it died: B's attempt is the delivery's first.
        expect(delivery.attempts.map((attempt) => [attempt.attempt, attempt.status])).toEqual([[1, "succeeded"]])
      }
      expect(workerB.output()).not.toContain("lease ran out")
    } finally {
      await workerA.kill()
      if (workerB !== undefined) expect(await workerB.stop()).toBe(0)
      await receiver.close()
    }
  }, 60_000)

  it("two workers side by side send each of 200 events once", async () => {
    const count = 200
    // One worker keeps at most 50 + 24 sends in flight to one endpoint (WorkerSettings'
    // endpointInFlight and claimBatch - 1): with every answer held until more than that have
    // arrived, both workers must have sent before any send ends.
    const oneWorkersMost = 50 + 24
    const receiver = await startWebhookReceiver(() => ({ status: 200, hold: true }))
    const [key, ...workers] = await Promise.all([organization("pair"), startWorker(env), startWorker(env)])
    const receiverPort = Number(new URL(receiver.url).port)
    const connected = new Map(workers.map((worker) => [worker.pid, new Set<number>()]))
    const watch = setInterval(() => {
      for (const worker of workers) for (const port of connectionsTo(worker.pid, receiverPort)) connected.get(worker.pid)!.add(port)
    }, 50)
    try {
      const webhook = await registerWebhook(api.url, key, receiver.url)
      await createSubscribers(api.url, key, "pair", count, 10)
      await receiver.waitForIds(oneWorkersMost + 1, 30_000)
      receiver.release()
      await receiver.waitForIds(count, 30_000)
      // A second send of an attempt would come close behind the first.
      await sleep(1_000)
      clearInterval(watch)

      const requests = receiver.requests()
      const perId = groupBy(requests, (request) => request.webhookId)
      expect(perId.size).toBe(count)
      expect([...perId.values()].filter((sends) => sends.length > 1).map((sends) => sends[0]!.webhookId)).toEqual([])
      expect(requests.length).toBe(count)
      if (canSeeConnections) {
        // Both workers sent: each held connections of its own to the receiver.
        for (const [pid, ports] of connected) expect(ports.size, `worker ${pid} connected to the receiver`).toBeGreaterThan(0)
      }

      await waitUntil(async () => {
        const deliveries = await deliveriesOf(api.url, key, webhook.id)
        return deliveries.length === count && deliveries.every((delivery) => delivery.status === "succeeded")
      }, "every delivery recorded as succeeded", 5_000)
      const deliveries = await deliveriesOf(api.url, key, webhook.id)
      expect(new Set(deliveries.map((delivery) => delivery.event_id))).toEqual(new Set(perId.keys()))
      expect(deliveries.filter((delivery) => delivery.attempt_count !== 1 || delivery.attempts.length !== 1)).toEqual([])
      // The attempts table agrees: one row per delivery.
      const client = new pg.Client({ connectionString: env.DATABASE_URL })
      await client.connect()
      try {
        const rows = await client.query<{ attempts: number; deliveries: number }>(
          `SELECT count(*)::int AS attempts, count(DISTINCT delivery_id)::int AS deliveries
           FROM webhook_attempts WHERE endpoint_id = $1`,
          [webhook.id]
        )
        expect(rows.rows[0]).toEqual({ attempts: count, deliveries: count })
      } finally {
        await client.end()
      }
    } finally {
      clearInterval(watch)
      const codes = await Promise.all(workers.map((worker) => worker.stop()))
      expect(codes).toEqual([0, 0])
      await receiver.close()
    }
  }, 60_000)

  it("a worker told to stop while a request is in flight waits for the answer, records it and exits 0", async () => {
    const receiver = await startWebhookReceiver(() => ({ status: 200, delayMs: 2_000 }))
    const [key, worker] = await Promise.all([organization("stop"), startWorker(env)])
    try {
      const webhook = await registerWebhook(api.url, key, receiver.url)
      await createSubscribers(api.url, key, "stop", 1)
      await receiver.waitForIds(1, 10_000)

      const code = await worker.stop()
      const exitedAt = Date.now()
      expect(code).toBe(0)
      const [request] = receiver.requests()
      expect(request!.answeredStatus).toBe(200)
      expect(exitedAt).toBeGreaterThanOrEqual(request!.answeredAt!)
      expect(worker.output()).toContain("worker stopped")
      expect(worker.output()).not.toContain("lease ran out")

      const [delivery] = await deliveriesOf(api.url, key, webhook.id)
      expect(delivery).toMatchObject({ status: "succeeded", attempt_count: 1, next_attempt_at: null })
      expect(delivery!.attempts.map((attempt) => [attempt.status, attempt.response_status_code])).toEqual([["succeeded", 200]])
      // Not left leased for a later worker to send again.
      const client = new pg.Client({ connectionString: env.DATABASE_URL })
      await client.connect()
      try {
        const rows = await client.query("SELECT status, lease_token FROM webhook_deliveries WHERE id = $1", [delivery!.id])
        expect(rows.rows).toEqual([{ status: "succeeded", lease_token: null }])
      } finally {
        await client.end()
      }
      expect(receiver.requests()).toHaveLength(1)
    } finally {
      await worker.kill()
      await receiver.close()
    }
  }, 60_000)

  it("a redirect is not followed: the attempt fails with 302, and neither the metadata address nor another receiver is called", async () => {
    const elsewhere = await startWebhookReceiver()
    const toMetadata = await startWebhookReceiver(() => ({
      status: 302,
      headers: { location: "http://169.254.169.254/latest/meta-data/" }
    }))
    const toElsewhere = await startWebhookReceiver(() => ({ status: 302, headers: { location: elsewhere.url } }))
    const [key, worker] = await Promise.all([organization("redirect"), startWorker(env)])
    try {
      const webhooks = [
        await registerWebhook(api.url, key, toMetadata.url),
        await registerWebhook(api.url, key, toElsewhere.url)
      ]
      await createSubscribers(api.url, key, "redirect", 1)

      let attempts: ReadonlyArray<Attempt> = []
      await waitUntil(async () => {
        const firsts = await Promise.all(webhooks.map(async (webhook) => (await deliveriesOf(api.url, key, webhook.id))[0]?.attempts[0]))
        attempts = firsts.filter((attempt) => attempt !== undefined)
        return attempts.length === 2
      }, "an attempt recorded for each endpoint", 15_000)
      for (const attempt of attempts) {
        expect(attempt).toMatchObject({ attempt: 1, status: "failed", response_status_code: 302 })
        expect(attempt.error).toContain("redirects are not followed")
        expect(attempt.next_attempt_at).not.toBeNull()
      }
      expect(toMetadata.requests()).toHaveLength(1)
      expect(toElsewhere.requests()).toHaveLength(1)
      expect(elsewhere.requests()).toEqual([])
      // Nothing of this test is left to retry for the workers of others.
      for (const webhook of webhooks) expect((await send(`${api.url}/api/v1/webhooks/${webhook.id}`, key, "DELETE")).status).toBe(204)
    } finally {
      expect(await worker.stop()).toBe(0)
      await Promise.all([toMetadata.close(), toElsewhere.close(), elsewhere.close()])
    }
  }, 60_000)
})
