import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type pg from "pg"
import { measure } from "./stats.js"

/**
 * A subscriber's history (BENCH_SUITE=history): what the index of events by subscriber
 * (`outbox_events_subscriber_idx`) costs the writes that record events, and what it saves their
 * readers. Best run against a PostgreSQL server of its own, as WAL is counted for the whole server.
 *
 * Writes, without the index and then with it, twice in turn: BENCH_HISTORY_CREATES (3,000) `POST
 * /api/v1/subscribers` (16 in flight) and a `roster subscribers import` of BENCH_HISTORY_IMPORT_ROWS
 * (100,000) new subscribers, each after a CHECKPOINT, with the WAL written (`pg_current_wal_lsn`
 * before and after) per subscriber and the rate.
 *
 * Reads: BENCH_HISTORY_EVENTS (1,000,000) events of one organization put in by SQL, four about each
 * subscriber as they arrive, and 64 about a busy one spread over all of them; then the first page
 * of 25 (+1) newest first as the adapter asks for it, of the most recent subscriber, of the oldest
 * and of the busy one (and its second page, by keyset), and all of the oldest's events as the data
 * export reads them; each 20 times, with the index and without it. BENCH_HISTORY_EVENTS=0 measures
 * the writes alone, BENCH_HISTORY_CREATES=0 the reads alone.
 */

const events = Number(process.env.BENCH_HISTORY_EVENTS ?? 1_000_000)
const creates = Number(process.env.BENCH_HISTORY_CREATES ?? 3_000)
const importRows = Number(process.env.BENCH_HISTORY_IMPORT_ROWS ?? 100_000)
const PAGE = 25
const BUSY = 64
const RUNS = 20

const INDEX = "CREATE INDEX IF NOT EXISTS outbox_events_subscriber_idx ON outbox_events ((data -> 'subscriber' ->> 'id'), position)"
const NO_INDEX = "DROP INDEX IF EXISTS outbox_events_subscriber_idx"

export interface HistoryBenchContext {
  readonly base: string
  readonly env: NodeJS.ProcessEnv
  readonly pool: pg.Pool
  readonly root: string
  readonly cli: (env: NodeJS.ProcessEnv, ...args: Array<string>) => unknown
}

/**
 * The WAL the server writes while `task` runs, from a checkpoint after a vacuum: what autovacuum
 * would have written meanwhile for earlier work is not counted.
 */
const walBytes = async (pool: pg.Pool, task: () => Promise<void>) => {
  await pool.query("VACUUM")
  await pool.query("CHECKPOINT")
  const before = (await pool.query<{ lsn: string }>("SELECT pg_current_wal_lsn()::text AS lsn")).rows[0]!.lsn
  await task()
  const { rows } = await pool.query<{ bytes: string }>("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1) AS bytes", [before])
  return Number(rows[0]!.bytes)
}

const writeCost = async (context: HistoryBenchContext, label: string, dir: string) => {
  const slug = `writes-${label.replaceAll(" ", "-")}`
  context.cli(context.env, "org", "create", "--name", slug, "--slug", slug, "--tier", "enterprise")
  const { key } = context.cli(context.env, "api-key", "create", "--org", slug, "--name", "bench", "--scopes", "*") as { key: string }
  const post = (email: string) => async () => {
    const res = await fetch(`${context.base}/api/v1/subscribers`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key },
      body: JSON.stringify({ email, metadata: { plan: "gold" } })
    })
    if (res.status !== 201) throw new Error(`create answered ${res.status}: ${await res.text()}`)
    await res.arrayBuffer()
  }
  // The CLI held this process's event loop: let it see the sockets the API closed meanwhile, before reusing one.
  await new Promise((resolve) => setTimeout(resolve, 100))
  await measure("warm-up", 300, 16, (i) => post(`warm-${slug}-${i}@example.com`)())
  let perSecond = 0
  const createWal = await walBytes(context.pool, async () => {
    perSecond = (await measure("create", creates, 16, (i) => post(`api-${slug}-${i}@example.com`)())).perSecond
  })
  const file = join(dir, `${slug}.csv`)
  writeFileSync(
    file,
    ["email,first_name,tags", ...Array.from({ length: importRows }, (_, i) => `import-${slug}-${i}@example.com,Reader${i},Weekly`)]
      .join("\n") + "\n"
  )
  let seconds = 0
  const importWal = await walBytes(context.pool, async () => {
    const startedAt = performance.now()
    const run = spawnSync(process.execPath, ["dist/cli.mjs", "subscribers", "import", file, "--org", slug], {
      cwd: context.root,
      env: context.env,
      encoding: "utf8"
    })
    if (run.status !== 0) throw new Error(`the import failed: ${run.stderr}`)
    seconds = (performance.now() - startedAt) / 1000
  })
  console.log(
    `${label.padEnd(16)} create: ${(createWal / creates).toFixed(0).padStart(6)} WAL bytes each, ${perSecond.toFixed(0).padStart(5)}/s` +
      `   import: ${(importWal / importRows).toFixed(0).padStart(6)} WAL bytes a row, ${Math.round(importRows / seconds).toLocaleString("en-US").padStart(7)} rows/s`
  )
}

/** One organization's `events`: four about each subscriber in turn, and every `events / BUSY`th about the busy one. */
const seed = async (pool: pg.Pool, organizationId: string) => {
  const startedAt = performance.now()
  const busy = crypto.randomUUID()
  await pool.query(
    `INSERT INTO outbox_events (id, organization_id, type, occurred_at, data)
     SELECT gen_random_uuid(), $1,
            (ARRAY['subscriber.created', 'tag.subscribed', 'subscriber.updated', 'subscriber.note_added'])[1 + g % 4],
            timestamptz '2024-01-01' + g * interval '30 seconds',
            jsonb_build_object('subscriber', jsonb_build_object(
              'id', s.id, 'email', 'reader' || (g / 4) || '@example.com', 'status', 'active', 'first_name', 'Reader',
              'last_name', null, 'metadata', jsonb_build_object('plan', 'gold'), 'tags', '[]'::jsonb,
              'created_at', '2024-01-01T00:00:00.000Z', 'updated_at', '2024-01-01T00:00:00.000Z'),
              'changed', jsonb_build_array('status'))
     FROM generate_series(0, $2::int - 1) g,
       LATERAL (SELECT CASE WHEN g % ($2::int / $4::int) = 0 THEN $3::uuid
                ELSE ('00000000-0000-4000-8000-' || lpad(to_hex(g / 4), 12, '0'))::uuid END AS id) s
     ORDER BY g`,
    [organizationId, events, busy, BUSY]
  )
  await pool.query("VACUUM ANALYZE outbox_events")
  console.log(`\n${events.toLocaleString("en-US")} events put in and analyzed in ${((performance.now() - startedAt) / 1000).toFixed(1)} s`)
  const idOf = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`
  return { oldest: idOf(0), recent: idOf(Math.floor((events - 1) / 4)), busy }
}

/** The adapter's statements (postgres-outbox.ts): a page newest first, and all of them oldest first. */
const PAGE_QUERY = `
  SELECT id, organization_id, type, occurred_at, data FROM outbox_events
  WHERE data -> 'subscriber' ->> 'id' = $2 AND organization_id = $1
    AND ($3::uuid IS NULL OR position < (
      SELECT position FROM outbox_events WHERE id = $3 AND data -> 'subscriber' ->> 'id' = $2 AND organization_id = $1))
  ORDER BY position DESC LIMIT $4`
const ALL_QUERY = `
  SELECT id, organization_id, type, occurred_at, data FROM outbox_events
  WHERE data -> 'subscriber' ->> 'id' = $2 AND organization_id = $1 ORDER BY position`

interface PlanNode {
  readonly "Node Type": string
  readonly "Index Name"?: string
  readonly "Shared Hit Blocks": number
  readonly "Shared Read Blocks": number
  readonly Plans?: ReadonlyArray<PlanNode>
}

/** The pages a statement read, from the cache or not. */
const buffersOf = (plan: PlanNode) => plan["Shared Hit Blocks"] + plan["Shared Read Blocks"]

/** The scans of a plan, by the index they used. */
const scanOf = (plan: PlanNode): string => {
  const own = plan["Node Type"].includes("Scan") ? [`${plan["Node Type"]}${plan["Index Name"] ? ` on ${plan["Index Name"]}` : ""}`] : []
  return [...own, ...(plan.Plans ?? []).map(scanOf).filter((scan) => scan !== "")].join(" + ")
}

const timeQuery = async (pool: pg.Pool, text: string, values: ReadonlyArray<unknown>) => {
  const times: Array<number> = []
  let rows = 0
  for (let i = 0; i < RUNS; i++) {
    const startedAt = performance.now()
    rows = (await pool.query(text, values as Array<unknown>)).rowCount ?? 0
    times.push(performance.now() - startedAt)
  }
  times.sort((a, b) => a - b)
  return { p50: times[Math.floor(RUNS / 2)]!, max: times[RUNS - 1]!, rows }
}

const readCost = async (pool: pg.Pool, organizationId: string, label: string, subscribers: Awaited<ReturnType<typeof seed>>) => {
  const secondPageAfter = (await pool.query<{ id: string }>(PAGE_QUERY, [organizationId, subscribers.busy, null, PAGE])).rows[PAGE - 1]!.id
  const cases: ReadonlyArray<readonly [string, string, ReadonlyArray<unknown>]> = [
    ["page 1, most recent subscriber", PAGE_QUERY, [organizationId, subscribers.recent, null, PAGE + 1]],
    ["page 1, oldest subscriber", PAGE_QUERY, [organizationId, subscribers.oldest, null, PAGE + 1]],
    [`page 1, busy subscriber (${BUSY} events)`, PAGE_QUERY, [organizationId, subscribers.busy, null, PAGE + 1]],
    ["page 2, busy subscriber", PAGE_QUERY, [organizationId, subscribers.busy, secondPageAfter, PAGE + 1]],
    ["export's read, oldest subscriber", ALL_QUERY, [organizationId, subscribers.oldest]]
  ]
  for (const [what, text, values] of cases) {
    const { max, p50, rows } = await timeQuery(pool, text, values)
    const [explained] = (await pool.query<{ "QUERY PLAN": ReadonlyArray<{ "Execution Time": number; Plan: PlanNode }> }>(
      `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`,
      values as Array<unknown>
    )).rows[0]!["QUERY PLAN"]
    console.log(
      `${label.padEnd(14)} ${what.padEnd(38)} ${String(rows).padStart(3)} rows   p50 ${p50.toFixed(2).padStart(8)} ms   max ${max.toFixed(2).padStart(8)} ms` +
        `   server ${explained!["Execution Time"].toFixed(2).padStart(8)} ms, ${buffersOf(explained!.Plan).toLocaleString("en-US").padStart(7)} buffers, ${scanOf(explained!.Plan)}`
    )
  }
}

export const runHistoryBench = async (context: HistoryBenchContext) => {
  const { pool } = context
  const dir = mkdtempSync(join(tmpdir(), "roster-bench-history-"))
  try {
    console.log(`A subscriber's history on PostgreSQL ${(await pool.query("SHOW server_version")).rows[0].server_version}\n`)
    // In turns, so that neither is measured only on a fuller database or a busier machine.
    for (const round of creates === 0 ? [] : [1, 2]) {
      await pool.query(NO_INDEX)
      await writeCost(context, `without index ${round}`, dir)
      await pool.query(INDEX)
      await writeCost(context, `with index ${round}`, dir)
    }
    if (events === 0) return

    context.cli(context.env, "org", "create", "--name", "History", "--slug", "history", "--tier", "enterprise")
    const organizationId = (await pool.query<{ id: string }>("SELECT id FROM organizations WHERE slug = 'history'")).rows[0]!.id
    const subscribers = await seed(pool, organizationId)
    await readCost(pool, organizationId, "with index", subscribers)
    await pool.query(NO_INDEX)
    await readCost(pool, organizationId, "without index", subscribers)
    await pool.query(INDEX)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
