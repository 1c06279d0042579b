import { type ChildProcess, spawn } from "node:child_process"
import { createInterface } from "node:readline"
import type pg from "pg"
import { encodeCursor } from "@roster/domain"
import { npmScript } from "../scripts/build.mjs"
import { runDashboardListPages, signInByEmail } from "./dashboard-list.js"
import { measure, type RunFigures } from "./stats.js"

/**
 * The subscriber list as the dashboard reads it (BENCH_SUITE=list): one organization of
 * BENCH_LIST_ROWS (1,000,000) subscribers put in by SQL (ids ordered by creation as UUIDv7 are, a
 * mix of statuses, about a fifth carrying one of four tags), then BENCH_LIST_REQUESTS (200)
 * requests one after another of each page the dashboard asks for, 50 rows at a time: the first
 * page, a page 2,000 pages deep (by a cursor made from the row before it), a search by a
 * three-letter prefix, a status and a tag; each with `count=capped`, as the dashboard asks, and
 * the search and the status again with the exact count. Then the dashboard's own page of the list
 * on the same organization, as its owner signed in sees it (bench/dashboard-list.ts).
 * BENCH_LIST_PAGES picks `api`, `dashboard` or both (`all`, the default). The server's own time of
 * each request is the `duration_ms` of its request line (whole milliseconds, from the JSON log of an
 * API process of this suite's own), beside the time this process saw; the goal is p95 at most 100 ms.
 */

const rows = Number(process.env.BENCH_LIST_ROWS ?? 1_000_000)
const requests = Number(process.env.BENCH_LIST_REQUESTS ?? 200)
const TARGET_P95_MS = 100
const PAGE = 50
const DEEP_PAGE = 2_000
/** How deep the dashboard's deep page starts, in rows newest first. */
const DASHBOARD_DEEP_ROW = 900_000
/** Which list is timed: `all` (default), `api` (GET /api/v1/subscribers) or `dashboard` (its page). */
const pages = process.env.BENCH_LIST_PAGES ?? "all"

export interface ListBenchContext {
  readonly env: NodeJS.ProcessEnv
  readonly pool: pg.Pool
  readonly root: string
  readonly freePort: () => Promise<number>
  readonly waitReady: (base: string, server: ChildProcess) => Promise<void>
  readonly cli: (env: NodeJS.ProcessEnv, ...args: Array<string>) => unknown
}

const FIRST_NAMES = [
  "mary", "maria", "mark", "martin", "marta", "james", "john", "joan", "jose", "robert", "michael", "william", "david",
  "richard", "joseph", "thomas", "charles", "linda", "barbara", "elizabeth", "jennifer", "susan", "jessica", "sarah",
  "karen", "nancy", "lisa", "betty", "sandra", "ashley", "emily", "donna", "michelle", "carol", "amanda", "melissa",
  "deborah", "stephanie", "rebecca", "laura", "helen", "anna", "ada", "grace", "alan", "edsger", "ken", "kate",
  "dennis", "zoe"
]
const DOMAINS = ["gmail.com", "yahoo.com", "outlook.com", "example.com", "mail.example.org", "proton.me"]
const TAGS = ["Weekly", "Product news", "Events", "Partners"]

export const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

/**
 * Puts `rows` subscribers into the organization in one statement: ids as UUIDv7 (the creation
 * time's milliseconds first), 30 seconds apart; `first.last<n>@domain` addresses; 85 % active,
 * 9 % unsubscribed, 4 % bounced, 2 % complained; every fifth carrying one of the tags. The kept
 * counts (the organization's slots, each tag's count) follow, and the tables are vacuumed and
 * analyzed as autovacuum leaves tables that have been there a while.
 */
const seed = async (pool: pg.Pool, organizationId: string, tagIds: ReadonlyArray<string>) => {
  const t0 = performance.now()
  await pool.query(
    `INSERT INTO subscribers (id, organization_id, email, email_key, status, metadata, first_name, created_at, updated_at)
     SELECT (lpad(to_hex(ms), 12, '0') || '7' || substr(h, 1, 3) || '8' || substr(h, 4, 15))::uuid, $1, address, address,
            CASE WHEN g % 100 < 85 THEN 'active' WHEN g % 100 < 94 THEN 'unsubscribed'
                 WHEN g % 100 < 98 THEN 'bounced' ELSE 'complained' END,
            '{}', initcap(first), to_timestamp(ms / 1000.0), to_timestamp(ms / 1000.0)
     FROM generate_series(1, $4::int) g,
       LATERAL (SELECT 1704067200000::bigint + g::bigint * 30000 AS ms, md5(g::text) AS h,
                       ($2::text[])[1 + (hashint4(g) & 1048575) % cardinality($2::text[])] AS first,
                       ($2::text[])[1 + (hashint4(g + 7) & 1048575) % cardinality($2::text[])] AS last,
                       ($3::text[])[1 + (hashint4(g + 13) & 1048575) % cardinality($3::text[])] AS domain) v,
       LATERAL (SELECT first || '.' || last || g || '@' || domain AS address) a`,
    [organizationId, FIRST_NAMES, DOMAINS, rows]
  )
  await pool.query(
    `INSERT INTO subscriber_tags (subscriber_id, tag_id, subscribed_at)
     SELECT id, ($2::uuid[])[1 + (hashtext(id::text) & 1048575) / 5 % cardinality($2::uuid[])], created_at
     FROM subscribers WHERE organization_id = $1 AND (hashtext(id::text) & 1048575) % 5 = 0`,
    [organizationId, tagIds]
  )
  await pool.query(
    `UPDATE tags SET subscriber_count = (SELECT count(*) FROM subscriber_tags st WHERE st.tag_id = tags.id)
     WHERE organization_id = $1`,
    [organizationId]
  )
  await pool.query(
    `INSERT INTO organization_subscriber_slots (organization_id, shard, used, allowance, quota) VALUES ($1, 0, $2, NULL, NULL)
     ON CONFLICT (organization_id, shard) DO UPDATE SET used = organization_subscriber_slots.used + $2`,
    [organizationId, rows]
  )
  for (const table of ["subscribers", "subscriber_tags"]) await pool.query(`VACUUM ANALYZE ${table}`)
  console.log(`seeded ${rows} subscribers by SQL in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
}

/** An API process of this suite's own whose JSON request lines give the server's time of each request by its id. */
export const startLoggingApi = async (context: ListBenchContext) => {
  const port = await context.freePort()
  const base = `http://127.0.0.1:${port}`
  const server = spawn(process.execPath, [...npmScript("api").nodeOptions, "dist/api.mjs"], {
    cwd: context.root,
    env: { ...context.env, PORT: String(port), MIGRATE: "false", LOG_LEVEL: "info", LOG_FORMAT: "json" },
    stdio: ["ignore", "pipe", "inherit"]
  })
  const durations = new Map<string, number>()
  // The console mailer prints each email to this output: sign-in links are read from it.
  const signInTokens: Array<string> = []
  createInterface({ input: server.stdout! }).on("line", (line) => {
    const link = /\/auth\/sign-in\?token=([A-Za-z0-9_%.-]+)/.exec(line)
    if (link !== null) signInTokens.push(decodeURIComponent(link[1]!))
    if (!line.includes("\"duration_ms\"")) return
    try {
      const entry = JSON.parse(line) as { request_id?: string; duration_ms?: number }
      if (entry.request_id !== undefined && entry.duration_ms !== undefined) durations.set(entry.request_id, entry.duration_ms)
    } catch {
      // not a request line
    }
  })
  await context.waitReady(base, server)
  /** The server's times of these requests, once their lines are written (the log is buffered). */
  const serverTimes = async (ids: ReadonlyArray<string>) => {
    for (let i = 0; i < 100 && ids.some((id) => !durations.has(id)); i++) await new Promise((r) => setTimeout(r, 50))
    return ids.map((id) => durations.get(id)).filter((d): d is number => d !== undefined)
  }
  /** The token of the next sign-in link this process prints, once it is printed. */
  const nextSignInToken = async (seen: number) => {
    for (let i = 0; i < 100 && signInTokens.length <= seen; i++) await new Promise((r) => setTimeout(r, 50))
    const token = signInTokens[seen]
    if (token === undefined) throw new Error("the API printed no sign-in link")
    return token
  }
  const stop = async () => {
    server.kill("SIGTERM")
    await new Promise((r) => server.once("exit", r))
  }
  return { base, serverTimes, signInTokenCount: () => signInTokens.length, nextSignInToken, stop }
}

/** The API process of this suite, which logs each request's time and prints sign-in links. */
export type LoggingApi = Awaited<ReturnType<typeof startLoggingApi>>

/** Each run's server p50, p95 and p99 and client p50, p95 and p99 in ms, beside the goal (p95 at most 100 ms). */
export const printRuns = (
  column: string,
  runs: ReadonlyArray<{ readonly client: RunFigures; readonly server: ReadonlyArray<number>; readonly shown: string }>
) => {
  const cell = (n: number) => n.toFixed(1).padStart(9)
  const width = Math.max(34, ...runs.map((r) => r.client.label.length))
  const heads = ["srv p50", "srv p95", "srv p99", "cli p50", "cli p95", "cli p99"].map((h) => h.padStart(9)).join(" ")
  console.log(`${"page".padEnd(width)} ${column.padStart(9)} ${heads}  goal p95 <= ${TARGET_P95_MS} ms`)
  for (const { client, server, shown } of runs) {
    const p95 = percentile(server, 95)
    console.log(`${client.label.padEnd(width)} ${shown.padStart(9)} ${cell(percentile(server, 50))} ${cell(p95)} ` +
      `${cell(percentile(server, 99))} ${cell(client.p50)} ${cell(client.p95)} ${cell(client.p99)}  ` +
      `${p95 <= TARGET_P95_MS ? "met" : `NOT met (${(p95 - TARGET_P95_MS).toFixed(0)} ms over)`}`)
  }
}

interface ListRun {
  readonly client: RunFigures
  readonly server: ReadonlyArray<number>
  readonly total: number
  readonly capped: boolean
}

export const runListBench = async (context: ListBenchContext): Promise<void> => {
  const api = await startLoggingApi(context)
  try {
    // The organization is its owner's, who made it signed in, as the dashboard's people do; the
    // platform's admin then puts it on the plan whose rate limits the runs stay within.
    const cookie = await signInByEmail(api, "owner@list-bench.example")
    const made = await fetch(`${api.base}/auth/organizations`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie },
      body: JSON.stringify({ name: "List bench", slug: "list-bench" })
    })
    if (made.status !== 200) throw new Error(`POST /auth/organizations answered ${made.status}: ${await made.text()}`)
    const organizationId = ((await made.json()) as { id: string }).id
    context.cli(context.env, "org", "update", "list-bench", "--tier", "enterprise")
    const { key } = context.cli(context.env, "api-key", "create", "--org", "list-bench", "--name", "bench", "--scopes", "*") as {
      key: string
    }
    // The CLI held this process still: a kept-alive connection the API closed meanwhile is let go before the next request.
    await new Promise((r) => setTimeout(r, 100))
    const tagIds: Array<string> = []
    for (const name of TAGS) {
      const res = await fetch(`${api.base}/api/v1/tags`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": key },
        body: JSON.stringify({ name })
      })
      if (res.status !== 201) throw new Error(`tag answered ${res.status}: ${await res.text()}`)
      tagIds.push(((await res.json()) as { id: string }).id)
    }
    await seed(context.pool, organizationId, tagIds)

    // The row just before page 2,000 (newest first): its cursor is what the dashboard would hold there.
    const deepOffset = Math.min(rows - 1, (DEEP_PAGE - 1) * PAGE) - 1
    const mark = (await context.pool.query<{ created_at: Date; id: string }>(
      "SELECT created_at, id FROM subscribers WHERE organization_id = $1 ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 1",
      [organizationId, Math.max(0, deepOffset)]
    )).rows[0]!
    const deepCursor = encodeURIComponent(
      encodeCursor({ sort: "created_at", order: "desc", value: mark.created_at.toISOString(), id: mark.id })
    )
    const search = "mar"
    const matches = (await context.pool.query<{ count: string }>(
      "SELECT count(*) FROM subscribers WHERE organization_id = $1 AND email_key LIKE 'mar%'",
      [organizationId]
    )).rows[0]!.count

    const run = async (label: string, query: string): Promise<ListRun> => {
      const path = `/api/v1/subscribers?limit=${PAGE}&${query}`
      let total = 0
      let capped = false
      const ids: Array<string> = []
      // Warmed first, so that neither the JIT nor a cold cache is in the figures.
      for (let i = 0; i < 10; i++) await (await fetch(`${api.base}${path}`, { headers: { "x-api-key": key } })).arrayBuffer()
      const client = await measure(label, requests, 1, async (i) => {
        const id = `list-${label.replace(/\W+/g, "-")}-${i}`
        ids.push(id)
        const res = await fetch(`${api.base}${path}`, { headers: { "x-api-key": key, "x-request-id": id } })
        const body = (await res.json()) as { items: Array<unknown>; total: number; total_capped: boolean }
        if (res.status !== 200 || body.items.length === 0) throw new Error(`${path} answered ${res.status}, ${body.items?.length} rows`)
        total = body.total
        capped = body.total_capped
      })
      return { client, server: [...await api.serverTimes(ids)].sort((a, b) => a - b), total, capped }
    }

    console.log(`\nSubscriber list: ${rows} subscribers in one organization, ${requests} requests a run one at a time, ` +
      `${PAGE} a page; "${search}" starts ${matches} emails. Server time: duration_ms of the API's request line.`)
    if (pages !== "dashboard") {
      const runs: Array<ListRun> = [
        await run("first page", "count=capped"),
        await run(`page ${DEEP_PAGE} (cursor)`, `count=capped&cursor=${deepCursor}`),
        await run(`search=${search}`, `count=capped&search=${search}`),
        await run("status=unsubscribed", "count=capped&status=unsubscribed"),
        await run("status=active", "count=capped&status=active"),
        await run(`tag (${TAGS[0]})`, `count=capped&tag=${tagIds[0]}`),
        await run(`search=${search}, exact count`, `search=${search}`),
        await run("status=unsubscribed, exact count", "status=unsubscribed"),
        await run("status=active, exact count", "status=active")
      ]
      console.log("\nGET /api/v1/subscribers (API key):")
      printRuns("total", runs.map((r) => ({ ...r, shown: `${r.total}${r.capped ? "+" : ""}` })))
    }
    if (pages !== "api") {
      const dashboard = await runDashboardListPages({
        api,
        pool: context.pool,
        organizationId,
        slug: "list-bench",
        cookie,
        tags: TAGS.map((name, i) => ({ id: tagIds[i]!, name })),
        requests,
        page: PAGE,
        deepRow: Math.min(rows - PAGE, DASHBOARD_DEEP_ROW)
      })
      console.log("\nGET /app/o/list-bench/subscribers (the dashboard, signed in; \"results\" = the part the filter form replaces):")
      printRuns("rows", dashboard.map((r) => ({ ...r, shown: r.rows })))
    }
  } finally {
    await api.stop()
  }
}
