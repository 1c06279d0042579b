import { WorkerSettings } from "../apps/worker/settings.js"
import { environmentOf, npmScript } from "../scripts/build.mjs"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import type pg from "pg"

/**
 * The webhook half of `npm run bench`: one worker process sending to a receiver in this process
 * that answers 204 at once, against the bench's own PostgreSQL database.
 *
 * 1. Throughput. With no worker running, BENCH_WEBHOOK_EVENTS (20,000) events go into the outbox
 *    in one SQL INSERT (not through the API: the API's create rate would be what is measured).
 *    Then one worker starts, and the run times, from its "worker started" line, when the outbox is
 *    fanned out (every event has its delivery) and when the receiver has every event. A second run
 *    makes those deliveries pending again by SQL and times the sending alone.
 * 2. Delay. With the API and one worker running, POST /api/v1/subscribers at a steady
 *    BENCH_WEBHOOK_RATE (100) per second for BENCH_WEBHOOK_SECONDS (20), open-loop (each request
 *    leaves at its scheduled time, whatever the earlier ones are doing); for every event, its
 *    arrival at the receiver minus the payload's `created_at`. Then the same rate of events
 *    inserted into the outbox by SQL, one autocommitted statement each, so that the worker's own
 *    delay shows without the API's.
 */

export interface WebhookBenchContext {
  /** The API under test, e.g. http://127.0.0.1:40123; it must allow private webhook targets. */
  readonly base: string
  /** The environment the API runs with; the worker gets the same. */
  readonly env: NodeJS.ProcessEnv
  /** A pool on the bench database. */
  readonly pool: pg.Pool
  readonly root: string
  /** Runs the CLI and answers its JSON. */
  readonly cli: (env: NodeJS.ProcessEnv, ...args: Array<string>) => { readonly [field: string]: unknown }
}

const events = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 20_000)
const rate = Number(process.env.BENCH_WEBHOOK_RATE ?? 100)
const seconds = Number(process.env.BENCH_WEBHOOK_SECONDS ?? 20)

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const percentile = (sorted: ReadonlyArray<number>, p: number): number =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

const cell = (n: number, digits: number) => (Number.isFinite(n) ? n.toFixed(digits) : "-").padStart(9)

/** A receiver that answers 204 at once and keeps, per webhook-id, when it first arrived and its body's `created_at`. */
const startReceiver = async () => {
  let firstArrivals = new Map<string, { readonly at: number; readonly createdAt: number }>()
  let requests = 0
  const server = http.createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const at = Date.now()
      requests++
      const id = String(request.headers["webhook-id"])
      if (!firstArrivals.has(id)) {
        const createdAt = Date.parse((JSON.parse(Buffer.concat(chunks).toString("utf8")) as { created_at: string }).created_at)
        firstArrivals.set(id, { at, createdAt })
      }
      response.writeHead(204).end()
    })
  })
  server.keepAliveTimeout = 10_000
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    arrivals: () => firstArrivals,
    requests: () => requests,
    reset: () => {
      firstArrivals = new Map()
      requests = 0
    },
    close: () => new Promise<void>((resolve) => (server.close(() => resolve()), server.closeAllConnections()))
  }
}

/** `npm run worker` as package.json says it: the environment it adds (the C library's allocator settings) and its Node.js options. */
const workerScript = npmScript("worker")

/** Starts `apps/worker/main.ts` with `env`; resolves once it logged "worker started", with that moment. */
export const startWorker = async (
  context: { readonly root: string; readonly env: NodeJS.ProcessEnv; readonly nodeArgs?: ReadonlyArray<string> }
) => {
  // BENCH_WORKER_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR" profiles the worker; BENCH_WORKER_ENV="A=1 B=2"
  // replaces WORKER_ENV.
  const extra = context.nodeArgs ?? process.env.BENCH_WORKER_NODE_ARGS?.split(" ").filter((arg) => arg !== "") ?? []
  const workerEnv = process.env.BENCH_WORKER_ENV === undefined ? workerScript.env : environmentOf(process.env.BENCH_WORKER_ENV.split(" ").filter((pair) => pair !== ""))
  const child: ChildProcess = spawn(process.execPath, [...workerScript.nodeOptions, ...extra, "dist/worker.mjs"], {
    cwd: context.root,
    env: { ...context.env, ...workerEnv, LOG_LEVEL: "info" },
    stdio: ["ignore", "pipe", "inherit"]
  })
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve))
  // BENCH_WORKER_STDOUT=FILE keeps what the worker writes (its log, and V8's traces) in FILE.
  const keep = process.env.BENCH_WORKER_STDOUT === undefined ? undefined : fs.createWriteStream(process.env.BENCH_WORKER_STDOUT)
  const startedAt = await new Promise<number>((resolve, reject) => {
    let output = ""
    const onData = (chunk: Buffer) => {
      output += chunk
      if (keep !== undefined) keep.write(chunk)
      if (output.includes("worker started")) {
        child.stdout!.off("data", onData)
        // Keep draining, so that the worker never blocks on a full pipe.
        if (keep === undefined) child.stdout!.resume()
        else child.stdout!.pipe(keep)
        resolve(Date.now())
      }
    }
    child.stdout!.on("data", onData)
    child.once("exit", () => reject(new Error(`the worker exited during start:\n${output}`)))
  })
  return {
    startedAt,
    pid: child.pid!,
    stop: () => {
      child.kill("SIGTERM")
      return exited
    }
  }
}

const earliest = (arrivals: ReadonlyMap<string, { readonly at: number }>) => {
  let first = Infinity
  for (const { at } of arrivals.values()) first = Math.min(first, at)
  return first
}

/**
 * Calls `task(i)` at a steady `rate` per second for `seconds`, open-loop: each call starts at its
 * scheduled time, however many earlier ones are still running. The calls' latencies, sorted.
 */
const paced = async (task: (i: number) => Promise<boolean>) => {
  const total = Math.round(rate * seconds)
  const latencies: Array<number> = []
  const calls: Array<Promise<void>> = []
  let lateness = 0
  let failed = 0
  const started = performance.now()
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate
    const wait = due - performance.now()
    if (wait > 1) await sleep(wait)
    lateness = Math.max(lateness, performance.now() - due)
    calls.push((async () => {
      const t = performance.now()
      const ok = await task(i).catch(() => false)
      if (ok) latencies.push(performance.now() - t)
      else failed++
    })())
  }
  const offered = total / ((performance.now() - started) / 1000)
  await Promise.all(calls)
  latencies.sort((a, b) => a - b)
  return { latencies, succeeded: latencies.length, failed, lateness, offered }
}

/** Arrival minus the payload's `created_at`, per event, sorted. */
const delaysOf = (arrivals: ReadonlyMap<string, { readonly at: number; readonly createdAt: number }>) =>
  [...arrivals.values()].map((a) => a.at - a.createdAt).sort((a, b) => a - b)

const waitFor = async (predicate: () => boolean | Promise<boolean>, what: string, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`webhook bench: ${what} did not happen within ${timeoutMs / 1000} s`)
    await sleep(20)
  }
  return Date.now()
}

/** An organization with a key and one endpoint, hearing `subscriber.created`, at `url`. */
const tenant = async (context: WebhookBenchContext, slug: string, url: string) => {
  context.cli(context.env, "org", "create", "--name", slug, "--slug", slug, "--tier", "enterprise")
  const { key } = context.cli(context.env, "api-key", "create", "--org", slug, "--name", "bench", "--scopes", "*") as { key: string }
  const res = await fetch(`${context.base}/api/v1/webhooks`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": key },
    body: JSON.stringify({ url, events: ["subscriber.created"] })
  })
  if (res.status !== 201) throw new Error(`webhook create answered ${res.status}: ${await res.text()}`)
  const endpoint = (await res.json()) as { id: string }
  const organization = await context.pool.query<{ id: string }>("SELECT id FROM organizations WHERE slug = $1", [slug])
  return { key, endpointId: endpoint.id, organizationId: organization.rows[0]!.id }
}

export const runWebhookBench = async (context: WebhookBenchContext): Promise<void> => {
  const { pool } = context
  const settings = WorkerSettings.defaultValue()
  const receiver = await startReceiver()
  const stops: Array<() => Promise<unknown>> = []
  try {
    // Events the API bench left behind have no endpoint; they would only slow the first fan-out.
    await pool.query(
      `UPDATE outbox_dispatch_mark SET (xid, position, dispatched_at) =
         (SELECT xid, position, now() FROM outbox_events ORDER BY xid DESC, position DESC LIMIT 1)
       WHERE EXISTS (SELECT 1 FROM outbox_events)`
    )
    const hooks = await tenant(context, "hooks", receiver.url)

    // 1. Throughput of one worker.
    const t0 = performance.now()
    await pool.query(
      `INSERT INTO outbox_events (id, organization_id, type, occurred_at, data)
       SELECT gen_random_uuid(), $1, 'subscriber.created', now(),
              jsonb_build_object('subscriber', jsonb_build_object('id', gen_random_uuid(), 'email', 'hook' || g || '@example.com', 'status', 'active'))
       FROM generate_series(1, $2::int) g`,
      [hooks.organizationId, events]
    )
    const seeded = (performance.now() - t0) / 1000

    let worker = await startWorker(context)
    stops.push(worker.stop)
    const fannedOutAt = await waitFor(async () => {
      const pending = await pool.query(
        `SELECT 1 FROM outbox_dispatch_mark m JOIN outbox_events e ON (e.xid, e.position) > (m.xid, m.position) LIMIT 1`
      )
      return pending.rowCount === 0
    }, "fan-out", 600_000)
    const receivedAtFanOut = receiver.arrivals().size
    const allSentAt = await waitFor(() => receiver.arrivals().size >= events, `${events} deliveries`, 600_000)
    const firstArrival = earliest(receiver.arrivals()) - worker.startedAt
    const fanOut = { seconds: (fannedOutAt - worker.startedAt) / 1000 }
    const deliveredBeside = { seconds: (allSentAt - worker.startedAt) / 1000 }
    const duplicatesBeside = receiver.requests() - events
    await worker.stop()
    stops.pop()

    // The same deliveries, pending again: sending alone.
    await pool.query("DELETE FROM webhook_attempts WHERE endpoint_id = $1", [hooks.endpointId])
    await pool.query(
      `UPDATE webhook_deliveries SET status = 'pending', attempt_count = 0, next_attempt_at = now(), lease_token = NULL
       WHERE endpoint_id = $1`,
      [hooks.endpointId]
    )
    await pool.query("VACUUM ANALYZE webhook_deliveries")
    receiver.reset()
    worker = await startWorker(context)
    stops.push(worker.stop)
    const aloneDoneAt = await waitFor(() => receiver.arrivals().size >= events, `${events} deliveries again`, 600_000)
    const aloneFirst = earliest(receiver.arrivals())
    const alone = { seconds: (aloneDoneAt - worker.startedAt) / 1000, fromFirst: (aloneDoneAt - aloneFirst) / 1000 }

    // 2. Delay at a steady rate, through the API, with this worker running; then the same rate of
    // events written straight to the outbox, one autocommitted INSERT each, which leaves the API out.
    receiver.reset()
    const steady = await tenant(context, "steady", receiver.url)
    const viaApi = await paced(async (i) => {
      const res = await fetch(`${context.base}/api/v1/subscribers`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": steady.key },
        body: JSON.stringify({ email: `steady${i}@example.com` })
      })
      await res.arrayBuffer()
      return res.status === 201
    })
    await waitFor(() => receiver.arrivals().size >= viaApi.succeeded, "every delivery of the API run", 120_000)
    const apiDelays = delaysOf(receiver.arrivals())
    receiver.reset()
    const viaSql = await paced(async (i) => {
      await pool.query(
        `INSERT INTO outbox_events (id, organization_id, type, occurred_at, data)
         VALUES (gen_random_uuid(), $1, 'subscriber.created', clock_timestamp(),
                 jsonb_build_object('subscriber', jsonb_build_object('id', gen_random_uuid(), 'email', 'paced' || $2::int || '@example.com')))`,
        [steady.organizationId, i]
      )
      return true
    })
    await waitFor(() => receiver.arrivals().size >= viaSql.succeeded, "every delivery of the SQL run", 120_000)
    const sqlDelays = delaysOf(receiver.arrivals())
    await worker.stop()
    stops.pop()

    console.log(`\nWebhooks: one worker process (WorkerSettings defaults: fanOutBatch ${settings.fanOutBatch}, ` +
      `maxInFlight ${settings.maxInFlight}, endpointInFlight ${settings.endpointInFlight}, claimBatch ${settings.claimBatch}, ` +
      `fanOutIdleMs ${settings.fanOutIdleMs}..${settings.fanOutMaxIdleMs}, ` +
      `deliveryIdleMs ${settings.deliveryIdleMs}..${settings.deliveryMaxIdleMs}); ` +
      "the receiver runs in this process and answers 204 at once.")
    console.log(`${events} events put in the outbox with one SQL INSERT (not through the API) in ${seeded.toFixed(1)} s; ` +
      "times start at the worker's \"worker started\" line.\n")
    console.log(`${"run".padEnd(52)} ${"count".padStart(7)} ${"per s".padStart(9)} ${"seconds".padStart(9)}`)
    const row = (label: string, count: number, s: number) =>
      console.log(`${label.padEnd(52)} ${String(count).padStart(7)} ${cell(count / s, 0)} ${cell(s, 1)}`)
    row("worker  fan-out: outbox -> deliveries", events, fanOut.seconds)
    row("worker  sent, fan-out running beside", events, deliveredBeside.seconds)
    row("worker  sent, after fan-out finished", events - receivedAtFanOut, (allSentAt - fannedOutAt) / 1000)
    row("worker  sent alone (deliveries pending again)", events, alone.seconds)
    row("worker  sent alone, first to last arrival", events, alone.fromFirst)
    console.log(`  (first run: first arrival ${(firstArrival / 1000).toFixed(2)} s after "worker started", ` +
      `${receivedAtFanOut} of ${events} arrived by the end of fan-out, ${duplicatesBeside} sends beyond one per event)`)

    console.log(`\n${"run".padEnd(52)} ${"count".padStart(7)} ${"p50 ms".padStart(9)} ${"p95 ms".padStart(9)} ${"p99 ms".padStart(9)} ${"max ms".padStart(9)}`)
    const latencyRow = (label: string, sorted: ReadonlyArray<number>) =>
      console.log(`${label.padEnd(52)} ${String(sorted.length).padStart(7)} ${cell(percentile(sorted, 50), 1)} ` +
        `${cell(percentile(sorted, 95), 1)} ${cell(percentile(sorted, 99), 1)} ${cell(sorted.at(-1) ?? NaN, 1)}`)
    latencyRow(`created_at -> arrival, ${rate} POST/s for ${seconds} s`, apiDelays)
    latencyRow(`HTTP  POST /api/v1/subscribers at ${rate}/s`, viaApi.latencies)
    latencyRow(`created_at -> arrival, ${rate} SQL INSERT/s (no API)`, sqlDelays)
    latencyRow(`pg    INSERT INTO outbox_events at ${rate}/s`, viaSql.latencies)
    for (const [what, run] of [["POST", viaApi], ["INSERT", viaSql]] as const) {
      console.log(`  (${what}: offered ${run.offered.toFixed(1)}/s open-loop, the latest start ${run.lateness.toFixed(1)} ms ` +
        `behind schedule, ${run.failed} failed)`)
    }
    console.log("  created_at is stamped inside the creating transaction, before its commit: through the API it also " +
      "counts the wait for the commit.")
    console.log(`\nReproduce: BENCH_SUITE=webhooks BENCH_WEBHOOK_EVENTS=${events} BENCH_WEBHOOK_RATE=${rate} ` +
      `BENCH_WEBHOOK_SECONDS=${seconds} npm run bench`)
  } finally {
    for (const stop of stops) await stop()
    await receiver.close()
  }
}
