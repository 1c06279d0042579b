import type pg from "pg"
import { startResendApi } from "../test/support/resend-api.js"
import { startWorker } from "./webhooks.js"

/**
 * The email half of `npm run bench` (BENCH_SUITE=email): one worker process sending to a local
 * server that speaks Resend's API (batch endpoint included), against the bench's own PostgreSQL.
 *
 * 1. Throughput. With no worker running, BENCH_EMAIL_MESSAGES (20,000) queued emails to as many
 *    subscribers go into the database in one SQL INSERT each (not through the API: its rate
 *    would be what is measured). Then one worker starts with EMAIL_PROVIDER_RATE at
 *    BENCH_EMAIL_PROVIDER_RATE (10 calls a second), and the run times, from its "worker started"
 *    line, when the provider has every email: sends per second, calls and emails per call.
 * 2. Delay. With the API and one worker running (the provider rate at Resend's default, 2 calls a
 *    second), POST /api/v1/emails/send at a steady BENCH_EMAIL_RATE (50) per second for
 *    BENCH_EMAIL_SECONDS (20), open-loop; for every email, its arrival at the provider minus the
 *    moment its 202 came back.
 */

export interface EmailBenchContext {
  readonly base: string
  readonly env: NodeJS.ProcessEnv
  readonly pool: pg.Pool
  readonly root: string
  readonly cli: (env: NodeJS.ProcessEnv, ...args: Array<string>) => { readonly [field: string]: unknown }
}

const messages = Number(process.env.BENCH_EMAIL_MESSAGES ?? 20_000)
const providerRate = Number(process.env.BENCH_EMAIL_PROVIDER_RATE ?? 10)
const rate = Number(process.env.BENCH_EMAIL_RATE ?? 50)
const seconds = Number(process.env.BENCH_EMAIL_SECONDS ?? 20)

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const percentile = (sorted: ReadonlyArray<number>, p: number): number =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

export const runEmailBench = async (context: EmailBenchContext) => {
  const resend = await startResendApi()
  const workerEnv = { ...context.env, RESEND_API_KEY: resend.apiKey, RESEND_BASE_URL: resend.url }
  try {
    context.cli(context.env, "org", "create", "--name", "Email bench", "--slug", "email-bench", "--tier", "enterprise")
    const { key } = context.cli(context.env, "api-key", "create", "--org", "email-bench", "--name", "bench", "--scopes", "*") as { key: string }
    const organization = (await context.pool.query<{ id: string }>("SELECT id FROM organizations WHERE slug = 'email-bench'"))
      .rows[0]!.id

    console.log(`\nEmail: one worker, a Resend stand-in in this process answering at once.`)

    // 1. Throughput.
    const t0 = performance.now()
    await context.pool.query(
      `INSERT INTO subscribers (id, organization_id, email, email_key, status, metadata, created_at, updated_at)
       SELECT gen_random_uuid(), $1, 'bulk' || g || '@example.com', 'bulk' || g || '@example.com', 'active', '{}', now(), now()
       FROM generate_series(1, $2::int) g`,
      [organization, messages]
    )
    await context.pool.query(
      `INSERT INTO messages (id, organization_id, subscriber_id, kind, to_address, from_header, subject, text, headers,
                             status, next_attempt_at, created_at, updated_at)
       SELECT gen_random_uuid(), organization_id, id, 'marketing', email, '"Bench" <noreply@localhost>', 'Issue 1',
              'Hello ' || email, '{"List-Unsubscribe-Post":"List-Unsubscribe=One-Click"}', 'queued', now(), now(), now()
       FROM subscribers WHERE organization_id = $1`,
      [organization]
    )
    console.log(`queued ${messages} emails by SQL in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
    const bulk = await startWorker({ root: context.root, env: { ...workerEnv, EMAIL_PROVIDER_RATE: String(providerRate) } })
    await resend.waitForAccepted(messages, 600_000)
    const doneAt = resend.accepted().at(-1)!.at
    await bulk.stop()
    const calls = resend.calls().filter((call) => call.status === 200)
    const took = (doneAt - bulk.startedAt) / 1000
    console.log(`throughput, provider rate ${providerRate} calls/s: ${messages} emails in ${took.toFixed(2)} s = ` +
      `${(messages / took).toFixed(0)} emails/s; ${calls.length} calls, ${(messages / calls.length).toFixed(1)} emails a call ` +
      `(ceiling at this rate: ${providerRate * 100} emails/s)`)

    // 2. Delay at a steady rate, through the API.
    const worker = await startWorker({ root: context.root, env: workerEnv })
    const headers = { "content-type": "application/json", "x-api-key": key }
    const total = rate * seconds
    await context.pool.query(
      `INSERT INTO subscribers (id, organization_id, email, email_key, status, metadata, created_at, updated_at)
       SELECT gen_random_uuid(), $1, 'steady' || g || '@example.com', 'steady' || g || '@example.com', 'active', '{}', now(), now()
       FROM generate_series(0, $2::int) g`,
      [organization, total + 20]
    )
    // Warm the API's and the worker's paths.
    for (let i = 0; i < 20; i++) {
      await fetch(`${context.base}/api/v1/emails/send`, {
        method: "POST",
        headers,
        body: JSON.stringify({ to: `steady${total + i}@example.com`, kind: "transactional", subject: "Warm", text: "Warm" })
      }).then((r) => r.arrayBuffer())
    }
    await sleep(2_000)
    const answeredAt = new Map<string, number>()
    const started = Date.now()
    const sends: Array<Promise<void>> = []
    for (let i = 0; i < total; i++) {
      const due = started + (i * 1000) / rate
      const wait = due - Date.now()
      if (wait > 0) await sleep(wait)
      const to = `steady${i}@example.com`
      sends.push(
        fetch(`${context.base}/api/v1/emails/send`, {
          method: "POST",
          headers,
          body: JSON.stringify({ to, kind: "transactional", subject: "Your receipt", text: "Thanks" })
        }).then(async (res) => {
          answeredAt.set(to, Date.now())
          if (res.status !== 202) throw new Error(`send answered ${res.status}: ${await res.text()}`)
          await res.arrayBuffer()
        })
      )
    }
    await Promise.all(sends)
    await resend.waitForAccepted(messages + 20 + total, 60_000)
    await worker.stop()
    const delays = resend.accepted()
      .filter((email) => answeredAt.has(email.to))
      .map((email) => email.at - answeredAt.get(email.to)!)
      .sort((a, b) => a - b)
    const steadyCalls = resend.calls().filter((call) => call.status === 200 && call.at >= started).length
    console.log(`delay from 202 to provider at ${rate} sends/s for ${seconds} s (provider rate 2 calls/s): ` +
      `p50 ${percentile(delays, 50).toFixed(0)} ms, p95 ${percentile(delays, 95).toFixed(0)} ms, ` +
      `p99 ${percentile(delays, 99).toFixed(0)} ms, max ${delays.at(-1)!.toFixed(0)} ms; ` +
      `${steadyCalls} calls, ${(delays.length / Math.max(1, steadyCalls)).toFixed(1)} emails a call`)
  } finally {
    await resend.close()
  }
}
