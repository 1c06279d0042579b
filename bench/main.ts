import { encodeCursor } from "@roster/domain"
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createServer } from "node:net"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { buildRoster, npmScript } from "../scripts/build.mjs"
import { cpuSeconds, makeServerCpu, measure, printTable, ratio, type RunFigures } from "./stats.js"
import { runErrorBench } from "./errors.js"
import { runCampaignBench } from "./campaigns.js"
import { runSequenceBench } from "./sequences.js"
import { runHistoryBench } from "./history.js"
import { runImportBench } from "./imports.js"
import { runDashboardBench } from "./dashboard.js"
import { runListBench } from "./lists.js"
import { runDashboardCampaignsBench } from "./dashboard-campaigns.js"
import { runEmailBench } from "./email.js"
import { runWebhookBench } from "./webhooks.js"

/**
 * `npm run bench`: the API as its own process against a real PostgreSQL (a database of the
 * bench's own, dropped afterwards), measured over HTTP from this process, beside the same work
 * done directly through `pg` (the limit). Prints figures and ratios; sets no target.
 *
 * BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test) names a database on the
 * server to connect to for creating the bench database. BENCH_CONCURRENCY (16), BENCH_WRITES
 * (3000), BENCH_READS (6000) and BENCH_DEEP_ROWS (1000000) size the runs. BENCH_SUITE picks what
 * runs: `all` (default), `api`, `errors` (bench/errors.ts: the error answers of both wire forms) or
 * `webhooks` (bench/webhooks.ts, with its own BENCH_WEBHOOK_* sizes), `email` (bench/email.ts, with its
 * BENCH_EMAIL_* sizes), `campaigns` (bench/campaigns.ts, with its BENCH_CAMPAIGN_* sizes), `sequences` (bench/sequences.ts,
 * with its BENCH_SEQUENCE_* sizes), `imports`
 * (bench/imports.ts: CSV import and export through the CLI, BENCH_IMPORT_ROWS), `dashboard`
 * (bench/dashboard.ts: the bytes of a first visit to the dashboard) or `list` (bench/lists.ts:
 * the pages of the dashboard's subscriber list at BENCH_LIST_ROWS subscribers, from the API and from
 * the dashboard's own page, against p95 <= 100 ms), `dashboard-campaigns` (bench/dashboard-campaigns.ts:
 * the dashboard's campaign list and a campaign's figures at 1,000 campaigns and 1,000,000 messages,
 * with its BENCH_DASHBOARD_* sizes, against p95 <= 100 ms) or `history` (bench/history.ts: a subscriber's
 * events at BENCH_HISTORY_EVENTS, and what their index costs writes).
 */

const adminUrl = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16)
const writes = Number(process.env.BENCH_WRITES ?? 3000)
const reads = Number(process.env.BENCH_READS ?? 6000)
const deepRows = Number(process.env.BENCH_DEEP_ROWS ?? 1_000_000)
const suite = process.env.BENCH_SUITE ?? "all"
const root = fileURLToPath(new URL("..", import.meta.url))
/** The API's heap settings, as `npm start` and `npm run api` give them. */
const API_NODE_ARGS = npmScript("api").nodeOptions

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

const cli = (env: NodeJS.ProcessEnv, ...args: Array<string>) => {
  const result = spawnSync(process.execPath, ["dist/cli.mjs", ...args], { cwd: root, env, encoding: "utf8" })
  if (result.status !== 0) throw new Error(`roster ${args.join(" ")} failed: ${result.stderr}`)
  return JSON.parse(result.stdout)
}

const waitReady = async (base: string, server: ChildProcess) => {
  for (let i = 0; i < 200; i++) {
    if (server.exitCode !== null) throw new Error("the API process exited during start")
    try {
      if ((await fetch(`${base}/ready`)).ok) return
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error("the API did not become ready")
}

/** A process's resident memory in MB: `VmRSS` now, or `VmHWM`, its peak so far. */
const rssOf = (pid: number, field: "VmRSS" | "VmHWM" = "VmRSS"): number => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024
}

/** How long `npm start` takes to answer /health on a new embedded database, then on the same one again. */
const runStartBench = async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "roster-bench-start-"))
  const { DATABASE_URL: _database, REDIS_URL: _redis, ...embeddedEnv } = process.env
  try {
    const times: Array<number> = []
    let rss = 0
    for (const _ of ["first", "again"]) {
      const port = await freePort()
      const startedAt = performance.now()
      const child = spawn(process.execPath, [...API_NODE_ARGS, "dist/start.mjs"], {
        cwd: root,
        env: { ...embeddedEnv, DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1" },
        stdio: "ignore"
      })
      for (;;) {
        if (child.exitCode !== null) throw new Error("npm start exited during start")
        const up = await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok, () => false)
        if (up) break
        await new Promise((r) => setTimeout(r, 20))
      }
      times.push(performance.now() - startedAt)
      await new Promise((r) => setTimeout(r, 1_000))
      rss = rssOf(child.pid!)
      child.kill("SIGTERM")
      await new Promise((r) => child.once("exit", r))
    }
    console.log(`\nnpm start (embedded database): /health after ${(times[0]! / 1000).toFixed(2)} s on a new DATA_DIR, ` +
      `${(times[1]! / 1000).toFixed(2)} s on the same one again; ${rss.toFixed(0)} MB RSS at rest`)
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const main = async () => {
  // The programs measured are the compiled ones, as `npm start` runs them.
  await buildRoster()
  const database = `roster_bench_${randomBytes(4).toString("hex")}`
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect().catch((error) => {
    console.error(`bench: no PostgreSQL at ${adminUrl} (${error.message}); set BENCH_DATABASE_URL`)
    process.exit(1)
  })
  await admin.query(`CREATE DATABASE ${database}`)
  const url = new URL(adminUrl)
  url.pathname = `/${database}`
  const databaseUrl = url.toString()
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    HOST: "127.0.0.1",
    LOG_LEVEL: "warning",
    LOG_FORMAT: "json",
    // The webhook bench's receiver listens on 127.0.0.1.
    WEBHOOK_ALLOW_PRIVATE_TARGETS: "true"
  }
  const server = spawn(process.execPath, [...API_NODE_ARGS, "dist/api.mjs"], {
    cwd: root,
    env,
    stdio: ["ignore", "ignore", "inherit"]
  })
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 })
  // Dropping the database at the end ends connections the pool may still be closing.
  pool.on("error", () => {})

  try {
    await waitReady(base, server)
    const restingRss = rssOf(server.pid!)
    if (suite === "webhooks") return await runWebhookBench({ base, env, pool, root, cli })
    if (suite === "email") return await runEmailBench({ base, env, pool, root, cli })
    if (suite === "campaigns") return await runCampaignBench({ base, env, pool, root, cli })
    if (suite === "sequences") return await runSequenceBench({ base, env, pool, root, cli })
    if (suite === "imports") return await runImportBench({ env, pool, root, cli })
    if (suite === "list") return await runListBench({ env, pool, root, cli, freePort, waitReady })
    if (suite === "dashboard-campaigns") return await runDashboardCampaignsBench({ env, pool, root, cli, freePort, waitReady })
    if (suite === "dashboard") return await runDashboardBench(base)
    if (suite === "history") return await runHistoryBench({ base, env, pool, root, cli })
    cli(env, "org", "create", "--name", "Bench", "--slug", "bench", "--tier", "enterprise")
    cli(env, "org", "create", "--name", "Deep", "--slug", "deep", "--tier", "enterprise")
    const { key } = cli(env, "api-key", "create", "--org", "bench", "--name", "bench", "--scopes", "*")
    const { key: deepKey } = cli(env, "api-key", "create", "--org", "deep", "--name", "deep", "--scopes", "*")
    const orgs = await pool.query<{ id: string; slug: string }>("SELECT id, slug FROM organizations")
    const orgId = (slug: string) => orgs.rows.find((o) => o.slug === slug)!.id
    const headers = { "content-type": "application/json", "x-api-key": key }
    if (suite === "errors") return await runErrorBench({ env, root, concurrency, freePort, waitReady, cli })

    console.log(`Roster bench: ${concurrency} requests in flight, PostgreSQL ${(await pool.query("SHOW server_version")).rows[0].server_version}, node ${process.version}`)
    console.log(`API process on ${base}; the client runs in this process on the same ${(await import("node:os")).cpus().length} cores.\n`)

    // Warm both paths so that neither pays for JIT and connection set-up in its figures.
    await measure("warm-up", 300, concurrency, async (i) => {
      const res = await fetch(`${base}/api/v1/subscribers`, { method: "POST", headers, body: JSON.stringify({ email: `warm${i}@example.com` }) })
      await res.arrayBuffer()
    })

    // CPU time a request, of the API process and of the database's backends: a busy machine
    // changes it far less than requests a second. The direct runs' connections are opened first,
    // so that each backend is seen before the run it serves.
    const connections = await Promise.all(Array.from({ length: pool.options.max }, () => pool.connect()))
    for (const connection of connections) connection.release()
    const backends = makeServerCpu(database)
    const cpuLines: Array<string> = []
    /** `run`, and the CPU time a request it took (of the API too when `api`), to print after the table. */
    const cpuPerRequest = async (run: () => Promise<RunFigures>, api = true): Promise<RunFigures> => {
      backends.sample()
      const apiBefore = cpuSeconds(server.pid!) ?? 0
      const backendsBefore = backends.seconds()
      const figures = await run()
      backends.sample()
      const perRequest = (seconds: number) => `${Math.round((seconds * 1e6) / figures.count)} µs`
      const apiPart = api ? `API ${perRequest((cpuSeconds(server.pid!) ?? apiBefore) - apiBefore)}, ` : ""
      cpuLines.push(`${figures.label.padEnd(44)} CPU a request: ${apiPart}PostgreSQL ${perRequest(backends.seconds() - backendsBefore)}`)
      return figures
    }

    const created: Array<string> = []
    const httpCreate = await cpuPerRequest(() => measure("HTTP  POST /api/v1/subscribers", writes, concurrency, async (i) => {
      const res = await fetch(`${base}/api/v1/subscribers`, {
        method: "POST",
        headers,
        body: JSON.stringify({ email: `http${i}@example.com`, metadata: { plan: "gold", n: i } })
      })
      if (res.status !== 201) throw new Error(`create answered ${res.status}: ${await res.text()}`)
      created.push(((await res.json()) as { id: string }).id)
    }))

    const directOrg = orgId("deep")
    await pool.query(
      "INSERT INTO organization_subscriber_slots SELECT $1, g, 0, NULL, NULL FROM generate_series(0, 15) g ON CONFLICT DO NOTHING",
      [directOrg]
    )
    const pgCreate = await cpuPerRequest(() => measure("pg    same transaction (insert, event, count)", writes, concurrency, async (i) => {
      const client = await pool.connect()
      try {
        await client.query("BEGIN")
        const now = new Date()
        const id = crypto.randomUUID()
        const email = `pg${i}@example.com`
        await client.query(
          `INSERT INTO subscribers (id, organization_id, email, email_key, status, metadata, first_name, last_name, created_at, updated_at)
           VALUES ($1, $2, $3, $4, 'active', $5, NULL, NULL, $6, $6)`,
          [id, directOrg, email, email, JSON.stringify({ plan: "gold", n: i }), now]
        )
        await client.query(
          "INSERT INTO outbox_events (id, organization_id, type, occurred_at, data) VALUES ($1, $2, 'subscriber.created', $3, $4)",
          [crypto.randomUUID(), directOrg, now, JSON.stringify({ subscriber: { id, email } })]
        )
        await client.query(
          "UPDATE organization_subscriber_slots SET used = used + 1 WHERE organization_id = $1 AND shard = $2",
          [directOrg, i % 16]
        )
        await client.query("COMMIT")
      } finally {
        client.release()
      }
    }), false)

    const httpGet = await cpuPerRequest(() => measure("HTTP  GET /api/v1/subscribers/{id}", reads, concurrency, async (i) => {
      const res = await fetch(`${base}/api/v1/subscribers/${created[i % created.length]}`, { headers })
      if (res.status !== 200) throw new Error(`get answered ${res.status}`)
      await res.arrayBuffer()
    }))

    const pgGet = await cpuPerRequest(() => measure("pg    same reads (subscriber, its tags)", reads, concurrency, async (i) => {
      const id = created[i % created.length]
      await pool.query("SELECT * FROM subscribers WHERE organization_id = $1 AND id = $2", [orgId("bench"), id])
      await pool.query(
        "SELECT t.*, st.subscribed_at FROM subscriber_tags st JOIN tags t ON t.id = st.tag_id WHERE st.subscriber_id = $1",
        [id]
      )
    }), false)

    // A deep list: the "deep" organization grows to `deepRows` subscribers in one statement.
    const have = Number((await pool.query("SELECT count(*) FROM subscribers WHERE organization_id = $1", [directOrg])).rows[0].count)
    const t0 = performance.now()
    await pool.query(
      `INSERT INTO subscribers (id, organization_id, email, email_key, status, metadata, created_at, updated_at)
       SELECT gen_random_uuid(), $1, 'deep' || g || '@example.com', 'deep' || g || '@example.com', 'active', '{}',
              timestamptz '2026-01-01' + g * interval '1 second', timestamptz '2026-01-01' + g * interval '1 second'
       FROM generate_series(1, $2::int) g`,
      [directOrg, Math.max(0, deepRows - have)]
    )
    await pool.query(
      "UPDATE organization_subscriber_slots SET used = used + $2 WHERE organization_id = $1 AND shard = 0",
      [directOrg, Math.max(0, deepRows - have)]
    )
    await pool.query("ANALYZE subscribers")
    console.log(`seeded ${deepRows} subscribers for the deep-page runs in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`)

    const deepHeaders = { "x-api-key": deepKey }
    const offset = deepRows - 50
    const mark = (await pool.query<{ created_at: Date; id: string }>(
      "SELECT created_at, id FROM subscribers WHERE organization_id = $1 ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 1",
      [directOrg, offset - 1]
    )).rows[0]!
    const deepCursor = encodeCursor({ sort: "created_at", order: "desc", value: mark.created_at.toISOString(), id: mark.id })
    const pages = 200
    const firstPage = await measure("HTTP  first page (limit 50)", pages, 1, async () => {
      const res = await fetch(`${base}/api/v1/subscribers?limit=50`, { headers: deepHeaders })
      const body = (await res.json()) as { items: Array<unknown> }
      if (body.items.length !== 50) throw new Error("first page is not full")
    })
    const deepPage = await measure(`HTTP  page at row ${offset} (cursor)`, pages, 1, async () => {
      const res = await fetch(`${base}/api/v1/subscribers?limit=50&cursor=${deepCursor}`, { headers: deepHeaders })
      const body = (await res.json()) as { items: Array<unknown> }
      if (body.items.length !== 50) throw new Error(`deep page has ${body.items.length} rows`)
    })
    const pgOffset = await measure(`pg    OFFSET ${offset} (for comparison)`, pages, 1, async () => {
      await pool.query("SELECT * FROM subscribers WHERE organization_id = $1 ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 50", [directOrg, offset])
    })

    printTable([httpCreate, pgCreate, httpGet, pgGet, firstPage, deepPage, pgOffset])
    console.log("")
    for (const line of cpuLines) console.log(line)
    const peak = rssOf(server.pid!, "VmHWM")
    console.log(`\nAPI process RSS: ${restingRss.toFixed(0)} MB at rest after start, ${peak.toFixed(0)} MB at its peak under these runs`)
    console.log("")
    ratio("create: HTTP throughput / direct pg throughput", httpCreate.perSecond, pgCreate.perSecond)
    ratio("get by id: HTTP throughput / direct pg throughput", httpGet.perSecond, pgGet.perSecond)
    ratio(`list: page at row ${offset} p50 / first page p50 (keyset)`, deepPage.p50, firstPage.p50)
    ratio(`list: pg OFFSET ${offset} p50 / HTTP deep page p50`, pgOffset.p50, deepPage.p50)
    await runStartBench()
    if (suite === "all") {
      await runErrorBench({ env, root, concurrency, freePort, waitReady, cli })
      await runWebhookBench({ base, env, pool, root, cli })
      await runEmailBench({ base, env, pool, root, cli })
      await runCampaignBench({ base, env, pool, root, cli })
      await runSequenceBench({ base, env, pool, root, cli })
    }
  } finally {
    server.kill("SIGTERM")
    await new Promise((r) => server.once("exit", r))
    await pool.end()
    // BENCH_KEEP_DATABASE=1 keeps it, to look at the plans of what was measured.
    if (process.env.BENCH_KEEP_DATABASE === "1") console.log(`kept database ${database}`)
    else await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
    await admin.end()
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
