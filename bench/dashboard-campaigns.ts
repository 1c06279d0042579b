import type pg from "pg"
import { signInByEmail } from "./dashboard-list.js"
import { type ListBenchContext, printRuns, startLoggingApi } from "./lists.js"
import { measure } from "./stats.js"

/**
 * The dashboard's Campaigns screens at size (BENCH_SUITE=dashboard-campaigns): one
 * organization of BENCH_DASHBOARD_SUBSCRIBERS (100,000) subscribers, BENCH_DASHBOARD_CAMPAIGNS (1,000)
 * campaigns and BENCH_DASHBOARD_MESSAGES (1,000,000) messages with their provider events, put in by
 * SQL. Four campaigns went to every subscriber; the other messages are spread evenly over the
 * campaigns that started (sent, most of them; a few failed, cancelled or sending). Then, as the
 * owner signed in with the emailed link sees them, BENCH_DASHBOARD_REQUESTS (200) requests one after
 * another of each page, after ten to warm up: the list's first page, its last (numbered pages, 50
 * a page) and the one that holds the largest campaign; and the figures page (`Campaigns.report`:
 * the counts by status, the chart's events and the unsubscribed) of the largest sent campaign and of
 * a typical one. The server's time is the `duration_ms` of each request's log line, as in
 * bench/lists.ts; the goal is p95 at most 100 ms.
 */

const subscribers = Number(process.env.BENCH_DASHBOARD_SUBSCRIBERS ?? 100_000)
const campaignCount = Number(process.env.BENCH_DASHBOARD_CAMPAIGNS ?? 1_000)
const messageCount = Number(process.env.BENCH_DASHBOARD_MESSAGES ?? 1_000_000)
const requests = Number(process.env.BENCH_DASHBOARD_REQUESTS ?? 200)
const PER_PAGE = 50
/** How many campaigns went to every subscriber. */
const WHOLE_LIST = 4
const SLUG = "campaigns-bench"

/**
 * Campaign `g` (1 = oldest, eight hours apart): the newest ten are drafts, scheduled or sending,
 * one in fifty failed and one in fifty was cancelled, the rest were sent. The whole-list campaigns
 * are evenly spaced among the sent ones; every other campaign that started has an even share of
 * the remaining messages. Messages go to subscribers in a campaign's own order (a step coprime to
 * the list's size), one in a thousand bounces and so on; the sending one has half still queued.
 * Each message's events follow its status: sent, delivered, opened (clicked ones twice) and clicked,
 * bounced or complained, within three days of its sending; the first of each kind the chart counts
 * is kept per email, as recording a provider's report keeps it.
 */
const seed = async (pool: pg.Pool, organizationId: string) => {
  const t0 = performance.now()
  await pool.query(
    `INSERT INTO subscribers (id, organization_id, email, email_key, status, metadata, first_name, created_at, updated_at)
     SELECT md5('subscriber-' || g)::uuid, $1, 'reader' || g || '@example.com', 'reader' || g || '@example.com',
            CASE WHEN g % 100 < 94 THEN 'active' WHEN g % 100 < 98 THEN 'unsubscribed' WHEN g % 100 < 99 THEN 'bounced'
                 ELSE 'complained' END,
            '{}', 'Reader', timestamptz '2025-01-01' + g * interval '1 minute',
            CASE WHEN g % 100 < 94 THEN timestamptz '2025-01-01' + g * interval '1 minute' ELSE now() - interval '1 day' END
     FROM generate_series(1, $2::int) g`,
    [organizationId, subscribers]
  )
  await pool.query(
    `INSERT INTO organization_subscriber_slots (organization_id, shard, used, allowance, quota) VALUES ($1, 0, $2, NULL, NULL)
     ON CONFLICT (organization_id, shard) DO UPDATE SET used = organization_subscriber_slots.used + $2`,
    [organizationId, subscribers]
  )
  await pool.query(
    `INSERT INTO campaigns (id, organization_id, name, kind, subject, html, status, scheduled_at, started_at, finished_at,
                            failure_reason, created_at, updated_at)
     SELECT md5('campaign-' || g)::uuid, $1, 'Issue ' || g, 'marketing', 'Issue ' || g || ' for {{ subscriber.first_name }}',
            '<p>Issue ' || g || '</p><p><a href="{{ unsubscribe_url }}">Unsubscribe</a></p>', status,
            CASE WHEN status = 'scheduled' THEN now() + interval '7 days' END,
            CASE WHEN status NOT IN ('draft', 'scheduled') THEN created_at + interval '1 hour' END,
            CASE WHEN status IN ('sent', 'failed', 'cancelled') THEN created_at + interval '3 hours' END,
            CASE WHEN status = 'failed' THEN '12 emails could not be sent; retry sends them again' END,
            created_at, created_at
     FROM generate_series(1, $2::int) g,
       LATERAL (SELECT now() - ($2::int - g + 1) * interval '8 hours' AS created_at,
                       CASE WHEN g > $2::int - 5 THEN 'draft' WHEN g > $2::int - 9 THEN 'scheduled'
                            WHEN g > $2::int - 10 THEN 'sending' WHEN g % 50 = 7 THEN 'failed'
                            WHEN g % 50 = 23 THEN 'cancelled' ELSE 'sent' END AS status) v`,
    [organizationId, campaignCount]
  )
  // Each campaign that started: its size, and its number among them (the whole-list ones apart).
  await pool.query(
    `CREATE TEMPORARY TABLE bench_sizes AS
     WITH started AS (
       SELECT id, started_at, status, (substring(name FROM 7))::int AS g,
              status = 'sent' AND (substring(name FROM 7))::int % ($3::int / $4::int) = $3::int / $4::int / 2 AS whole
       FROM campaigns WHERE organization_id = $1 AND started_at IS NOT NULL
     ), numbered AS (
       SELECT *, row_number() OVER (PARTITION BY whole ORDER BY g) AS n,
              count(*) FILTER (WHERE NOT whole) OVER () AS others, count(*) FILTER (WHERE whole) OVER () AS wholes
       FROM started
     )
     SELECT id, started_at, status, g,
            CASE WHEN whole THEN $2::int
                 ELSE ($5::int - $2::int * wholes) / others + CASE WHEN n <= ($5::int - $2::int * wholes) % others THEN 1 ELSE 0 END
            END AS size
     FROM numbered`,
    [organizationId, subscribers, campaignCount, WHOLE_LIST, messageCount]
  )
  await pool.query(
    `INSERT INTO messages (id, organization_id, subscriber_id, campaign_id, kind, to_address, from_header, subject, headers,
                           status, provider_id, attempt_count, next_attempt_at, created_at, updated_at)
     SELECT m.id, $1, md5('subscriber-' || r)::uuid, c.id, 'marketing', 'reader' || r || '@example.com',
            'Roster bench <news@example.com>', 'Issue ' || c.g || ' for Reader', '{}', m.status,
            CASE WHEN m.status NOT IN ('queued', 'failed') THEN 'bench-' || m.id END,
            CASE WHEN m.status = 'queued' THEN 0 ELSE 1 END,
            CASE WHEN m.status = 'queued' THEN m.at END, m.at, m.at + interval '1 minute'
     FROM bench_sizes c,
       LATERAL generate_series(1, c.size) k,
       LATERAL (SELECT 1 + (k::bigint * 7 + c.g::bigint * 7919) % $2::int AS r,
                       (hashint4((k + c.g::bigint * 1000003)::int) & 1048575) % 1000 AS p) h,
       LATERAL (SELECT gen_random_uuid() AS id,
                       c.started_at + (k - 1) * interval '2 hours' / c.size AS at,
                       CASE WHEN c.status = 'sending' AND k > c.size / 2 THEN 'queued'
                            WHEN c.status = 'failed' AND h.p < 20 THEN 'failed'
                            WHEN h.p < 15 THEN 'bounced' WHEN h.p < 17 THEN 'complained' WHEN h.p < 20 THEN 'sent'
                            WHEN h.p < 600 THEN 'delivered' WHEN h.p < 900 THEN 'opened' ELSE 'clicked' END AS status) m
     ORDER BY c.g, k`,
    [organizationId, subscribers]
  )
  await pool.query(
    `INSERT INTO message_events (id, message_id, organization_id, type, occurred_at)
     SELECT gen_random_uuid(), m.id, m.organization_id, e.type, m.created_at + e.after
     FROM messages m,
       LATERAL (SELECT ((hashtext(m.id::text) & 1048575) % 4320) * interval '1 minute' AS later) h,
       LATERAL (VALUES ('sent', interval '1 second', true),
                       ('delivered', interval '5 seconds', m.status IN ('delivered', 'opened', 'clicked', 'complained')),
                       ('opened', interval '1 minute' + h.later, m.status IN ('opened', 'clicked')),
                       ('opened', interval '2 hours' + h.later, m.status = 'clicked'),
                       ('clicked', interval '3 minutes' + h.later, m.status = 'clicked'),
                       ('bounced', interval '10 seconds', m.status = 'bounced'),
                       ('complained', interval '1 day', m.status = 'complained')) e(type, after, happened)
     WHERE m.organization_id = $1 AND m.status NOT IN ('queued', 'failed') AND e.happened
     ORDER BY m.created_at`,
    [organizationId]
  )
  // Each campaign email's first time of each kind the chart counts, as recording the reports keeps it.
  await pool.query(
    `INSERT INTO message_first_events (message_id, type, campaign_id, occurred_at)
     SELECT e.message_id, e.type, m.campaign_id, min(e.occurred_at)
     FROM messages m JOIN message_events e ON e.message_id = m.id
     WHERE m.organization_id = $1 AND m.campaign_id IS NOT NULL
       AND e.type IN ('delivered', 'opened', 'clicked', 'bounced', 'complained')
     GROUP BY e.message_id, e.type, m.campaign_id`,
    [organizationId]
  )
  await pool.query("DROP TABLE bench_sizes")
  for (const table of ["subscribers", "campaigns", "messages", "message_events", "message_first_events"]) {
    await pool.query(`VACUUM ANALYZE ${table}`)
  }
  const counts = (await pool.query<{ messages: string; events: string }>(
    `SELECT (SELECT count(*) FROM messages WHERE organization_id = $1) AS messages,
            (SELECT count(*) FROM message_events WHERE organization_id = $1) AS events`,
    [organizationId]
  )).rows[0]!
  console.log(`seeded ${subscribers} subscribers, ${campaignCount} campaigns, ${counts.messages} messages and ` +
    `${counts.events} events by SQL in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
}

/** The rows of the campaign list: one link to a campaign each. */
const campaignRowsIn = (html: string) => html.match(/<td><a href="[^"]+\/campaigns\/[0-9a-f-]{36}">/g)?.length ?? 0

export const runDashboardCampaignsBench = async (context: ListBenchContext): Promise<void> => {
  const api = await startLoggingApi(context)
  try {
    const cookie = await signInByEmail(api, "owner@campaigns-bench.example")
    const made = await fetch(`${api.base}/auth/organizations`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie },
      body: JSON.stringify({ name: "Campaigns bench", slug: SLUG })
    })
    if (made.status !== 200) throw new Error(`POST /auth/organizations answered ${made.status}: ${await made.text()}`)
    const organizationId = ((await made.json()) as { id: string }).id
    context.cli(context.env, "org", "update", SLUG, "--tier", "enterprise")
    await seed(context.pool, organizationId)

    const sized = await context.pool.query<{ id: string; name: string; size: number }>(
      `SELECT c.id, c.name, count(m.id)::integer AS size FROM campaigns c JOIN messages m ON m.campaign_id = c.id
       WHERE c.organization_id = $1 AND c.status = 'sent' GROUP BY c.id, c.name ORDER BY size DESC, c.name`,
      [organizationId]
    )
    const largest = sized.rows[0]!
    const typical = sized.rows[Math.floor(sized.rows.length / 2)]!
    const list = `/app/o/${SLUG}/campaigns`
    const lastPage = Math.max(1, Math.ceil(campaignCount / PER_PAGE))
    // The list's page that holds the largest campaign: its figures are counted with the others'.
    const position = Number((await context.pool.query<{ position: string }>(
      "SELECT count(*) AS position FROM campaigns WHERE organization_id = $1 AND (created_at, id) >= (SELECT created_at, id FROM campaigns WHERE id = $2)",
      [organizationId, largest.id]
    )).rows[0]!.position)
    const largestPage = Math.ceil(position / PER_PAGE)

    const get = async (path: string, requestId?: string) => {
      const res = await fetch(`${api.base}${path}`, {
        headers: { cookie, accept: "text/html", ...(requestId === undefined ? {} : { "x-request-id": requestId }) }
      })
      const html = await res.text()
      if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${html.slice(0, 300)}`)
      return html
    }
    /** `check` answers what the page shows, or throws when it shows the wrong thing. */
    const run = async (label: string, path: string, check: (html: string) => string) => {
      const ids: Array<string> = []
      let shown = ""
      for (let i = 0; i < 10; i++) check(await get(path))
      const client = await measure(label, requests, 1, async (i) => {
        const id = `campaigns-${label.replace(/\W+/g, "-")}-${i}`
        ids.push(id)
        shown = check(await get(path, id))
      })
      return { client, server: [...await api.serverTimes(ids)].sort((a, b) => a - b), shown }
    }
    const rows = (html: string) => {
      const n = campaignRowsIn(html)
      if (n === 0) throw new Error("the campaign list shows no campaigns")
      return `${n} rows`
    }
    const figures = (campaign: { readonly id: string; readonly name: string; readonly size: number }) => (html: string) => {
      if (!html.includes(`/campaigns/${campaign.id}/progress`) || !html.includes("id=\"campaign-figures\"") || !html.includes("<polyline")) {
        throw new Error(`the page of ${campaign.name} shows no figures or chart`)
      }
      return `${campaign.size}`
    }

    console.log(`\nCampaigns screens: ${subscribers} subscribers, ${campaignCount} campaigns, ${messageCount} messages in one ` +
      `organization; ${requests} requests a run one at a time, signed in. Server time: duration_ms of the API's request line.`)
    const runs = [
      await run("campaign list, page 1", list, rows),
      await run(`campaign list, page ${lastPage} (last)`, `${list}?page=${lastPage}`, rows),
      await run(`campaign list, page ${largestPage} (holds ${largest.name})`, `${list}?page=${largestPage}`, rows),
      await run(`figures of the largest sent (${largest.name})`, `${list}/${largest.id}`, figures(largest)),
      await run(`figures of a typical sent (${typical.name})`, `${list}/${typical.id}`, figures(typical))
    ]
    console.log(`\nGET ${list} and /{id} (the dashboard, signed in; "shown" = rows of the list or messages of the campaign):`)
    printRuns("shown", runs)
  } finally {
    await api.stop()
  }
}
