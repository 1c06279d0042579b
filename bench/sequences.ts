import { readFileSync } from "node:fs"
import { startResendApi } from "../test/support/resend-api.js"
import type { EmailBenchContext } from "./email.js"
import { cpuSeconds } from "./stats.js"
import { startWorker } from "./webhooks.js"

/**
 * The sequence half of `npm run bench` (BENCH_SUITE=sequences): one worker process against the
 * bench's PostgreSQL, sending to a local server that speaks Resend's API.
 *
 * One active sequence (send an email, wait 30 days, end) with BENCH_SEQUENCE_ENROLLMENTS
 * (1,000,000) enrollments of as many subscribers, put in by SQL (the API's rate is not what is
 * measured):
 * 1. Throughput. BENCH_SEQUENCE_DUE (100,000) of them are due at the same moment, the rest in a
 *    year. From the worker's "worker started" line to the last due enrollment moved on to its
 *    wait (its email queued, its step run recorded): steps a second (target >= 5,000), and the
 *    worker's peak RSS (VmHWM, target <= 150 MB), and the worker's CPU time a step meanwhile (on a shared
 *    machine the steady figure: wall time follows the load of the other work).
 * 2. Punctuality. With the worker idle, enrollments fall due at BENCH_SEQUENCE_RATE (100) a second
 *    for BENCH_SEQUENCE_SECONDS (20): for each, the step run's time minus its due time (target:
 *    p99 <= 1 s).
 */

const enrollments = Number(process.env.BENCH_SEQUENCE_ENROLLMENTS ?? 1_000_000)
// Never more than there are enrollments.
const due = Math.min(Number(process.env.BENCH_SEQUENCE_DUE ?? 100_000), enrollments)
const rate = Number(process.env.BENCH_SEQUENCE_RATE ?? 100)
const seconds = Number(process.env.BENCH_SEQUENCE_SECONDS ?? 20)

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const percentile = (sorted: ReadonlyArray<number>, p: number): number =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

const peakRss = (pid: number) => {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith("VmHWM:"))
  return Number(/(\d+)/.exec(line ?? "")?.[1] ?? NaN) / 1024
}

const verdict = (ok: boolean) => (ok ? "met" : "NOT met")

export const runSequenceBench = async (context: EmailBenchContext) => {
  const resend = await startResendApi()
  const env = { ...context.env, RESEND_API_KEY: resend.apiKey, RESEND_BASE_URL: resend.url }
  const { pool } = context
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
  try {
    context.cli(context.env, "org", "create", "--name", "Sequence bench", "--slug", "sequence-bench", "--tier", "enterprise")
    const { key } = context.cli(context.env, "api-key", "create", "--org", "sequence-bench", "--name", "bench", "--scopes", "*") as {
      key: string
    }
    const organization = (await pool.query<{ id: string }>("SELECT id FROM organizations WHERE slug = 'sequence-bench'")).rows[0]!.id
    const template = await api(key, "POST", "/api/v1/templates", {
      name: "Welcome",
      subject: "Welcome, {{ subscriber.first_name }}",
      html: "<p>Hi {{ subscriber.first_name }}, glad you are here.</p><p><a href=\"{{ unsubscribe_url }}\">Unsubscribe</a></p>"
    })
    const sequence = await api(key, "POST", "/api/v1/sequences", {
      name: "Welcome series",
      entry: { event: "api" },
      steps: [
        { name: "welcome", send_email: { template_id: template.id } },
        { name: "pause", wait: "P30D" },
        { end: true }
      ]
    })
    await api(key, "POST", `/api/v1/sequences/${sequence.id}/activate`)

    console.log(`\nSequences: one worker, a Resend stand-in in this process answering at once.`)
    const t0 = performance.now()
    await pool.query(
      `INSERT INTO subscribers (id, organization_id, email, email_key, status, metadata, first_name, created_at, updated_at)
       SELECT gen_random_uuid(), $1, 'seq' || g || '@example.com', 'seq' || g || '@example.com', 'active', '{}', 'Reader ' || g,
              now() - interval '1 day', now() - interval '1 day'
       FROM generate_series(1, $2::int) g`,
      [organization, enrollments]
    )
    // Enrollments at the first step: `due` of them due a minute ago, the rest in a year.
    await pool.query(
      `INSERT INTO sequence_enrollments (id, organization_id, sequence_id, version, subscriber_id, state, step_index,
                                         step_name, waiting, next_run_at, entered_at, updated_at)
       SELECT gen_random_uuid(), organization_id, $2, 1, id, 'active', 0, 'welcome', false,
              CASE WHEN row_number() OVER (ORDER BY id) <= $3 THEN now() - interval '1 minute' ELSE now() + interval '1 year' END,
              now(), now()
       FROM subscribers WHERE organization_id = $1`,
      [organization, sequence.id, due]
    )
    for (const table of ["subscribers", "sequence_enrollments"]) await pool.query(`VACUUM ANALYZE ${table}`)
    console.log(`${enrollments} subscribers and enrollments by SQL in ${((performance.now() - t0) / 1000).toFixed(1)} s`)

    // Whether any enrollment is still due. Not a count: counting the due enrollments visits every
    // one still waiting, and four times a second that took a fifth of the server's CPU from the
    // worker being measured (67 ms a call in pg_stat_statements).
    const anyDue = async () =>
      (await pool.query<{ due: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM sequence_enrollments WHERE state = 'active' AND next_run_at <= now()) AS due`
      )).rows[0]!.due

    // 1. Throughput.
    const worker = await startWorker({ root: context.root, env })
    const startedRss = peakRss(worker.pid)
    const startedCpu = cpuSeconds(worker.pid) ?? NaN
    do await sleep(250)
    while (await anyDue())
    const cpu = (cpuSeconds(worker.pid) ?? NaN) - startedCpu
    const last = (await pool.query<{ at: Date }>(
      `SELECT max(at) AS at FROM sequence_step_runs WHERE sequence_id = $1`,
      [sequence.id]
    )).rows[0]!.at
    const took = (last.getTime() - worker.startedAt) / 1000
    const perSecond = due / took
    const rss = peakRss(worker.pid)
    const queued = Number((await pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM messages WHERE organization_id = $1`,
      [organization]
    )).rows[0]!.n)
    console.log(`${due} of ${enrollments} enrollments due at once: the last moved on ${took.toFixed(2)} s after the worker ` +
      `started = ${perSecond.toFixed(0)} steps/s (target >= 5,000: ${verdict(perSecond >= 5_000)}); ${queued} emails queued; ` +
      `worker peak RSS ${rss.toFixed(0)} MB (target <= 150: ${verdict(rss <= 150)}; ${startedRss.toFixed(0)} MB once started); ` +
      `the worker's CPU time meanwhile ${cpu.toFixed(1)} s = ${(cpu * 1e6 / due).toFixed(0)} µs a step`)

    // 2. Punctuality: enrollments fall due at `rate` a second, starting in 5 s, on the running worker.
    const total = rate * seconds
    const scheduled = (await pool.query<{ id: string; due: Date }>(
      `WITH chosen AS (
         SELECT id, row_number() OVER (ORDER BY id) AS n FROM sequence_enrollments
         WHERE sequence_id = $1 AND state = 'active' AND NOT waiting AND next_run_at > now() + interval '1 day'
         LIMIT $2
       )
       UPDATE sequence_enrollments e SET next_run_at = now() + interval '5 seconds' + (chosen.n - 1) * ($3::float8 * interval '1 second')
       FROM chosen WHERE e.id = chosen.id
       RETURNING e.id, e.next_run_at AS due`,
      [sequence.id, total, 1 / rate]
    )).rows
    const dueOf = new Map(scheduled.map((row) => [row.id, row.due.getTime()]))
    await sleep(5_000 + seconds * 1_000 + 2_000)
    const runs = (await pool.query<{ enrollment_id: string; at: Date }>(
      `SELECT enrollment_id, at FROM sequence_step_runs WHERE enrollment_id = ANY($1::uuid[]) AND step_name = 'welcome'`,
      [[...dueOf.keys()]]
    )).rows
    const lateness = runs.map((run) => run.at.getTime() - dueOf.get(run.enrollment_id)!).sort((a, b) => a - b)
    await worker.stop()
    const p50 = percentile(lateness, 50)
    const p99 = percentile(lateness, 99)
    console.log(`${lateness.length} of ${total} enrollments falling due at ${rate}/s: a step ran after its time by ` +
      `p50 ${p50.toFixed(0)} ms, p99 ${p99.toFixed(0)} ms, max ${lateness.at(-1)?.toFixed(0)} ms ` +
      `(target p99 <= 1,000 ms: ${verdict(lateness.length === total && p99 <= 1_000)})`)
  } finally {
    await resend.close()
  }
}
