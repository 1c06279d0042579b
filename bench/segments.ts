import { CampaignRepository, SegmentAudience } from "@roster/application"
import { OrganizationId, SegmentFilter, SubscriberId } from "@roster/domain"
import { Effect, Layer, Redacted, Schema } from "effect"
import { randomUUID } from "node:crypto"
import pg from "pg"
import { makePgClient, PostgresPersistenceLive, runMigrations } from "../adapters/postgres/index.js"

/**
 * `npm run bench:segments`: counting a segment's audience in PostgreSQL (BENCH_DATABASE_URL, the
 * local server by default) over one organization of BENCH_SEGMENT_ROWS (1,000,000) subscribers put
 * in by SQL: 85 % active, a fifth carrying one of four tags, metadata `plan` one of four values
 * and `seats` a number, and a tenth with an email handed over 5 to 95 days ago, a third of those
 * opened. Each filter is counted BENCH_SEGMENT_RUNS (7) times through the real adapter (the
 * compiled predicate); the median counts, beside its target: status and one tag 300 ms, metadata
 * equality 500 ms, an engagement condition 1 s. The first filter is then counted as a campaign's
 * audience (what `count-recipients` and the start of a send select with), and the last asked of
 * one subscriber at a time, as a trigger's condition is. Then the write cost of the indexes segments
 * added, as WAL bytes per statement: BENCH_SEGMENT_WRITES (2000) subscriber creates (one row
 * each, autocommit) with and without the GIN index on `metadata`, and as many message events with
 * and without the engagement index (each after a checkpoint). A database of its own is made and
 * dropped (kept with BENCH_SEGMENT_KEEP, to look at plans).
 */

const rows = Number(process.env.BENCH_SEGMENT_ROWS ?? 1_000_000)
const runs = Number(process.env.BENCH_SEGMENT_RUNS ?? 7)
const writes = Number(process.env.BENCH_SEGMENT_WRITES ?? 2_000)
const serverUrl = process.env.BENCH_DATABASE_URL ?? "postgres://root@127.0.0.1:5432/test"

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const seed = async (pool: pg.Pool, organizationId: string, tagIds: ReadonlyArray<string>) => {
  const t0 = performance.now()
  await pool.query(
    `INSERT INTO organizations (id, name, slug, tier, created_at, updated_at) VALUES ($1, 'Bench', $2, 'enterprise', now(), now())`,
    [organizationId, `bench-${organizationId.slice(0, 8)}`]
  )
  await pool.query(
    `INSERT INTO tags (id, organization_id, name, name_key, slug, created_at, updated_at)
     SELECT id, $1, name, lower(name), lower(name), now(), now() FROM unnest($2::uuid[], $3::text[]) AS t(id, name)`,
    [organizationId, tagIds, tagIds.map((_, i) => `Tag${i}`)]
  )
  await pool.query(
    `INSERT INTO subscribers (id, organization_id, email, email_key, status, metadata, created_at, updated_at)
     SELECT gen_random_uuid(), $1, 'reader' || g || '@example' || (g % 7) || '.com', 'reader' || g || '@example' || (g % 7) || '.com',
            CASE WHEN g % 100 < 85 THEN 'active' WHEN g % 100 < 94 THEN 'unsubscribed' WHEN g % 100 < 98 THEN 'bounced' ELSE 'complained' END,
            jsonb_build_object('plan', (ARRAY['free', 'pro', 'team', 'trial'])[g % 4 + 1], 'seats', g % 50),
            now() - (g || ' seconds')::interval, now()
     FROM generate_series(1, $2::integer) AS g`,
    [organizationId, rows]
  )
  await pool.query(
    `INSERT INTO subscriber_tags (subscriber_id, tag_id, subscribed_at)
     SELECT s.id, ($2::uuid[])[(abs(hashtext(s.id::text)) % 4) + 1], now()
     FROM subscribers s WHERE s.organization_id = $1 AND abs(hashtext(s.id::text)) % 5 = 0`,
    [organizationId, tagIds]
  )
  await pool.query(
    `INSERT INTO messages (id, organization_id, subscriber_id, kind, to_address, from_header, subject, status, created_at, updated_at)
     SELECT gen_random_uuid(), $1, s.id, 'marketing', s.email, 'bench@example.com', 'Hi', 'sent', now(), now()
     FROM subscribers s WHERE s.organization_id = $1 AND abs(hashtext(s.id::text || 'm')) % 10 = 0`,
    [organizationId]
  )
  await pool.query(
    `INSERT INTO message_events (id, message_id, organization_id, type, occurred_at)
     SELECT gen_random_uuid(), m.id, m.organization_id, 'sent', now() - ((5 + abs(hashtext(m.id::text)) % 90) || ' days')::interval
     FROM messages m WHERE m.organization_id = $1`,
    [organizationId]
  )
  await pool.query(
    `INSERT INTO message_events (id, message_id, organization_id, type, occurred_at)
     SELECT gen_random_uuid(), e.message_id, e.organization_id, 'opened', e.occurred_at + interval '1 hour'
     FROM message_events e WHERE e.organization_id = $1 AND abs(hashtext(e.id::text)) % 3 = 0`,
    [organizationId]
  )
  await pool.query("VACUUM ANALYZE subscribers, subscriber_tags, messages, message_events")
  return performance.now() - t0
}

/** WAL bytes per statement of `statement(i)`, each in its own transaction. */
const walPerStatement = async (pool: pg.Pool, statement: (i: number) => readonly [string, ReadonlyArray<unknown>]) => {
  const client = await pool.connect()
  try {
    const before = (await client.query("SELECT pg_current_wal_insert_lsn() AS lsn")).rows[0].lsn
    for (let i = 0; i < writes; i++) {
      const [text, values] = statement(i)
      await client.query(text, values as Array<unknown>)
    }
    const after = (await client.query("SELECT pg_current_wal_insert_lsn() AS lsn")).rows[0].lsn
    return Number((await client.query("SELECT pg_wal_lsn_diff($1, $2) AS d", [after, before])).rows[0].d) / writes
  } finally {
    client.release()
  }
}

const main = async () => {
  const admin = new pg.Pool({ connectionString: serverUrl, max: 1 })
  const database = `roster_bench_segments_${process.pid}`
  await admin.query(`CREATE DATABASE ${database}`)
  const url = new URL(serverUrl)
  url.pathname = `/${database}`
  const pool = new pg.Pool({ connectionString: url.toString(), max: 2 })
  try {
    const layer = PostgresPersistenceLive.pipe(Layer.provideMerge(makePgClient(Redacted.make(url.toString()))))
    await Effect.runPromise(Effect.provide(runMigrations, layer))
    const organizationId = randomUUID()
    const tagIds = [randomUUID(), randomUUID(), randomUUID(), randomUUID()]
    const seeded = await seed(pool, organizationId, tagIds)
    console.log(`seeded ${rows} subscribers in ${(seeded / 1000).toFixed(1)} s`)

    const cases = [
      ["status + one tag", { all: [{ field: "status", op: "eq", value: "active" }, { field: "tags", op: "has_any", value: [tagIds[0]] }] }, 300],
      ["metadata equality", { field: "metadata.plan", op: "eq", value: "pro" }, 500],
      ["opened in the last 30 days", { field: "engagement.opened_days", op: "within", value: 30 }, 1000],
      ["active, received nothing in 30 days", { all: [{ field: "status", op: "eq", value: "active" }, { field: "engagement.received_days", op: "not_within", value: 30 }] }, 1000]
    ] as const
    const now = new Date()
    const organization = OrganizationId.make(organizationId)
    const sample = (await pool.query("SELECT id FROM subscribers WHERE organization_id = $1 ORDER BY id LIMIT 1000", [organizationId]))
      .rows.map((row) => SubscriberId.make(String(row.id)))
    await Effect.runPromise(Effect.gen(function*() {
      const audience = yield* SegmentAudience
      const campaigns = yield* CampaignRepository
      /** Median milliseconds of `runs` runs, and the last answer. */
      const timed = <A>(run: (i: number) => Effect.Effect<A>) =>
        Effect.gen(function*() {
          const times: Array<number> = []
          let answer: A | undefined
          for (let i = 0; i < runs; i++) {
            const t0 = performance.now()
            answer = yield* run(i)
            times.push(performance.now() - t0)
          }
          return { median: median(times), answer: answer! }
        })
      const report = (label: string, answer: string, ms: number, target?: number) =>
        console.log(`${label}: ${answer}, median ${ms.toFixed(ms < 10 ? 1 : 0)} ms over ${runs}` +
          (target === undefined ? "" : ` (target ${target} ms, ${ms <= target ? "met" : "MISSED"})`))
      for (const [label, raw, target] of cases) {
        const filter = Schema.decodeUnknownSync(SegmentFilter)(raw)
        const { answer, median: m } = yield* timed(() => audience.count(organization, filter, now))
        report(label, `${answer} match`, m, target)
      }
      const [firstLabel, first, firstTarget] = cases[0]
      const asAudience = { tagIds: [], excludeTagIds: [], filter: Schema.decodeUnknownSync(SegmentFilter)(first), at: now }
      const recipients = yield* timed(() => campaigns.countAudience(organization, asAudience, "marketing"))
      report(`campaign audience of "${firstLabel}"`, `${recipients.answer} recipients`, recipients.median, firstTarget)
      const [lastLabel, last] = cases[cases.length - 1]!
      const condition = Schema.decodeUnknownSync(SegmentFilter)(last)
      const one = yield* timed((i) => audience.matches(organization, condition, now, sample[(i * 137) % sample.length]!))
      report(`"${lastLabel}" of one subscriber (a trigger's condition)`, `last ${one.answer}`, one.median)
    }).pipe(Effect.provide(layer)))

    const subscriberInsert = (tag: string) => (i: number) => [
      `INSERT INTO subscribers (id, organization_id, email, email_key, status, metadata, created_at, updated_at)
       VALUES (gen_random_uuid(), $1, $2, $2, 'active', $3::jsonb, now(), now())`,
      [organizationId, `wal-${tag}-${i}@example.com`, JSON.stringify({ plan: "pro", seats: i % 50, source: "form" })]
    ] as const
    // A checkpoint before each run: both pay the same full-page images, and the difference is the index's.
    await pool.query("CHECKPOINT")
    const withGin = await walPerStatement(pool, subscriberInsert("gin"))
    await pool.query("DROP INDEX subscribers_metadata_idx")
    await pool.query("CHECKPOINT")
    const withoutGin = await walPerStatement(pool, subscriberInsert("plain"))
    await pool.query("CREATE INDEX subscribers_metadata_idx ON subscribers USING gin (metadata jsonb_path_ops)")
    console.log(`WAL per subscriber create: ${withoutGin.toFixed(0)} B without the metadata GIN index, ${withGin.toFixed(0)} B with it (+${(withGin - withoutGin).toFixed(0)} B)`)

    const messageIds = (await pool.query("SELECT id FROM messages WHERE organization_id = $1 LIMIT 1", [organizationId])).rows
    const eventInsert = (i: number) => [
      `INSERT INTO message_events (id, message_id, organization_id, type, occurred_at) VALUES (gen_random_uuid(), $1, $2, 'opened', now() - ($3 || ' seconds')::interval)`,
      [messageIds[0].id, organizationId, String(i)]
    ] as const
    await pool.query("CHECKPOINT")
    const withEngagement = await walPerStatement(pool, eventInsert)
    await pool.query("DROP INDEX message_events_engagement_idx")
    await pool.query("CHECKPOINT")
    const withoutEngagement = await walPerStatement(pool, eventInsert)
    await pool.query("CREATE INDEX message_events_engagement_idx ON message_events (organization_id, type, occurred_at) INCLUDE (message_id)")
    console.log(`WAL per message event: ${withoutEngagement.toFixed(0)} B without the engagement index, ${withEngagement.toFixed(0)} B with it (+${(withEngagement - withoutEngagement).toFixed(0)} B)`)
  } finally {
    await pool.end()
    if (process.env.BENCH_SEGMENT_KEEP === undefined) await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
    else console.log(`kept database ${database}`)
    await admin.end()
  }
}

await main()
