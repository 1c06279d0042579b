import { readFileSync } from "node:fs"
import { startResendApi } from "../test/support/resend-api.js"
import type { EmailBenchContext } from "./email.js"
import { startWorker } from "./webhooks.js"

/**
 * The campaign half of `npm run bench` (BENCH_SUITE=campaigns), against the bench's PostgreSQL
 * with one worker process and a local server that speaks Resend's API (batch endpoint, answering
 * at once).
 *
 * 1. A campaign to BENCH_CAMPAIGN_RECIPIENTS (100,000) tagged subscribers, sent with the provider
 *    rate at BENCH_CAMPAIGN_PROVIDER_RATE (100 calls a second: a ceiling of 10,000 emails a
 *    second): emails per second from the `send` request to the provider's last email, and the
 *    worker's peak RSS (VmHWM).
 * 2. An organization of BENCH_CAMPAIGN_LARGE (1,000,000) subscribers, half of them with the
 *    audience's tag: `count-recipients` (median of 5), and the time from `send` to the provider's
 *    first email of that campaign (then it is cancelled).
 * Subscribers and their tags go into the database by SQL: the API's rate is not what is measured.
 */

const recipients = Number(process.env.BENCH_CAMPAIGN_RECIPIENTS ?? 100_000)
const large = Number(process.env.BENCH_CAMPAIGN_LARGE ?? 1_000_000)
const providerRate = Number(process.env.BENCH_CAMPAIGN_PROVIDER_RATE ?? 100)

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

/** The peak resident set of a process, in MB, as Linux counts it. */
const peakRss = (pid: number) => {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith("VmHWM:"))
  return Number(/(\d+)/.exec(line ?? "")?.[1] ?? NaN) / 1024
}

export const runCampaignBench = async (context: EmailBenchContext) => {
  const resend = await startResendApi()
  const env = { ...context.env, RESEND_API_KEY: resend.apiKey, RESEND_BASE_URL: resend.url }
  const api = async (key: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${context.base}${path}`, {
      method,
      headers: { "content-type": "application/json", "x-api-key": key },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    const text = await res.text()
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text}`)
    return JSON.parse(text)
  }
  /** An organization with `count` subscribers, every `every`-th of them tagged; its key and the tag's id. */
  const organization = async (slug: string, count: number, every: number) => {
    context.cli(context.env, "org", "create", "--name", slug, "--slug", slug, "--tier", "enterprise")
    const { key } = context.cli(context.env, "api-key", "create", "--org", slug, "--name", "bench", "--scopes", "*") as {
      key: string
    }
    const id = (await context.pool.query<{ id: string }>("SELECT id FROM organizations WHERE slug = $1", [slug])).rows[0]!.id
    const tag = await api(key, "POST", "/api/v1/tags", { name: "Readers" })
    const t0 = performance.now()
    await context.pool.query(
      `INSERT INTO subscribers (id, organization_id, email, email_key, status, metadata, first_name, created_at, updated_at)
       SELECT gen_random_uuid(), $1, $2 || g || '@example.com', $2 || g || '@example.com', 'active', '{}', 'Reader ' || g,
              now() - interval '1 minute', now()
       FROM generate_series(1, $3::int) g`,
      [id, slug, count]
    )
    await context.pool.query(
      `INSERT INTO subscriber_tags (subscriber_id, tag_id, subscribed_at)
       SELECT id, $2, now() FROM subscribers WHERE organization_id = $1 AND (hashtext(id::text) % $3) = 0`,
      [id, tag.id, every]
    )
    // Vacuumed as autovacuum leaves tables that have been there a while: index-only reads need no row.
    for (const table of ["subscribers", "subscriber_tags"]) await context.pool.query(`VACUUM ANALYZE ${table}`)
    console.log(`${slug}: ${count} subscribers by SQL in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
    return { key, tagId: tag.id as string }
  }
  const campaign = (key: string, tagId: string) =>
    api(key, "POST", "/api/v1/campaigns", {
      name: "Bench issue",
      kind: "marketing",
      subject: "Hello {{ subscriber.first_name }}",
      html: "<h1>Issue 1</h1><p>Hi {{ subscriber.first_name }}, here is the news.</p>" +
        "<p><a href=\"{{ unsubscribe_url }}\">Unsubscribe</a> · <a href=\"{{ preferences_url }}\">Preferences</a></p>",
      audience: { tag_ids: [tagId] }
    })

  try {
    console.log(`\nCampaigns: one worker, a Resend stand-in in this process answering at once.`)
    // 1. Throughput.
    const small = await organization("campaign-bench", recipients, 1)
    const first = await campaign(small.key, small.tagId)
    const worker = await startWorker({
      root: context.root,
      env: { ...env, EMAIL_PROVIDER_RATE: String(providerRate) },
      // BENCH_WORKER_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR" profiles the worker.
      nodeArgs: process.env.BENCH_WORKER_NODE_ARGS?.split(" ").filter((arg) => arg !== "") ?? []
    })
    const sentAt = Date.now()
    await api(small.key, "POST", `/api/v1/campaigns/${first.id}/send`)
    await resend.waitForAccepted(recipients, 600_000)
    const doneAt = resend.accepted().at(-1)!.at
    const took = (doneAt - sentAt) / 1000
    const rss = peakRss(worker.pid)
    const calls = resend.calls().filter((call) => call.status === 200).length
    console.log(`campaign to ${recipients} at ${providerRate} calls/s: ${took.toFixed(2)} s from send to the last ` +
      `email = ${(recipients / took).toFixed(0)} emails/s; ${calls} calls; worker peak RSS ${rss.toFixed(0)} MB`)

    // 2. A million subscribers.
    const big = await organization("campaign-large", large, 2)
    const second = await campaign(big.key, big.tagId)
    const counts: Array<number> = []
    let counted = 0
    for (let i = 0; i < 5; i++) {
      const t = performance.now()
      counted = (await api(big.key, "POST", `/api/v1/campaigns/${second.id}/count-recipients`)).recipients
      counts.push(performance.now() - t)
    }
    console.log(`count-recipients, ${counted} of ${large} subscribers by tag: median ${median(counts).toFixed(0)} ms ` +
      `(${counts.map((c) => c.toFixed(0)).join(", ")})`)
    const before = resend.accepted().length
    const sendAt = Date.now()
    await api(big.key, "POST", `/api/v1/campaigns/${second.id}/send`)
    await resend.waitForAccepted(before + 1, 60_000)
    const firstAt = resend.accepted()[before]!.at
    await api(big.key, "POST", `/api/v1/campaigns/${second.id}/cancel`)
    console.log(`from send to the first provider call, audience of ${counted}: ${firstAt - sendAt} ms`)
    await worker.stop()
  } finally {
    await resend.close()
  }
}
