import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { callApi, freePort, run, type Running, type RunningWorker, start, startWorker } from "../support/processes.js"
import { postgresForProcesses as postgres } from "../support/servers.js"
import { waitUntil } from "../support/webhook-receiver.js"

/**
 * Sequences through the processes an operator runs, on PostgreSQL: an API, and worker processes
 * that are killed in the middle of a batch and run side by side. Each step of each enrollment
 * runs once: the step's email, its row in `sequence_step_runs` and the move to the next step
 * commit together, under the row lock the claim took.
 */

type Answer = { readonly [field: string]: unknown } & { readonly id?: string; readonly key?: string }

const METRICS_TOKEN = "sequences-end-to-end-metrics-token"

describe.skipIf(!postgres.available)(postgres.label, () => {
  let env: Record<string, string>
  let api: Running
  let db: pg.Client

  beforeAll(async () => {
    env = { DATABASE_URL: await postgres.database("sequences") }
    api = await start("api", env)
    db = new pg.Client({ connectionString: env.DATABASE_URL })
    await db.connect()
  }, 60_000)

  afterAll(async () => {
    await db?.end()
    if (api !== undefined) expect(await api.stop()).toBe(0)
  })

  /** An organization on the top plan, a two-email sequence with a second's wait, and `count` subscribers enrolled in it. */
  const given = async (name: string, count: number, enrollNow = true) => {
    const slug = `seq-${name}-${Date.now().toString(36)}`
    expect((await run("cli", ["org", "create", "--name", `Seq ${name}`, "--slug", slug, "--tier", "enterprise"], env)).code).toBe(0)
    const issued = await run("cli", ["api-key", "create", "--org", slug, "--name", "seq", "--scopes", "*"], env)
    expect(issued.code, issued.stderr).toBe(0)
    const key = (JSON.parse(issued.stdout) as Answer).key!
    const template = async (subject: string) =>
      (await callApi<Answer>(`${api.url}/api/v1/templates`, key, "POST", { name: subject, subject, text: subject })).body!.id!
    const [first, second] = [await template("First"), await template("Second")]
    const sequence = await callApi<Answer>(`${api.url}/api/v1/sequences`, key, "POST", {
      name: name,
      entry: { event: "api" },
      steps: [{ name: "first", send_email: { template_id: first } }, { name: "pause", wait: "PT1S" }, { name: "second", send_email: { template_id: second } }]
    })
    expect(sequence.status, JSON.stringify(sequence.body)).toBe(201)
    const id = sequence.body!.id!
    expect((await callApi(`${api.url}/api/v1/sequences/${id}/activate`, key, "POST")).status).toBe(200)
    const subscribers: Array<string> = []
    let next = 0
    const lane = async () => {
      while (next < count) {
        const created = await callApi<Answer>(`${api.url}/api/v1/subscribers`, key, "POST", { email: `${name}-${next++}@example.com` })
        expect(created.status, JSON.stringify(created.body)).toBe(201)
        subscribers.push(created.body!.id!)
      }
    }
    await Promise.all(Array.from({ length: 8 }, lane))
    const enroll = async () => {
      let i = 0
      const enrollLane = async () => {
        while (i < subscribers.length) {
          const subscriberId = subscribers[i++]
          const enrolled = await callApi(`${api.url}/api/v1/sequences/${id}/enrollments`, key, "POST", { subscriber_id: subscriberId })
          expect(enrolled.status, JSON.stringify(enrolled.body)).toBe(201)
        }
      }
      await Promise.all(Array.from({ length: 8 }, enrollLane))
    }
    if (enrollNow) await enroll()
    return { id, subscribers, enroll }
  }

  const completed = async (sequenceId: string) =>
    Number((await db.query("SELECT count(*)::int AS n FROM sequence_enrollments WHERE sequence_id = $1 AND state = 'completed'", [sequenceId]))
      .rows[0].n)

  /** Every enrollment ran first, pause, second, each once and in order; every subscriber got each email once. */
  const expectEachStepOnce = async (sequenceId: string, subscribers: ReadonlyArray<string>) => {
    const runs = await db.query<{ enrollment_id: string; steps: Array<string>; ordinals: Array<number> }>(
      `SELECT enrollment_id, array_agg(step_name ORDER BY ordinal) AS steps, array_agg(ordinal ORDER BY ordinal) AS ordinals
       FROM sequence_step_runs WHERE sequence_id = $1 GROUP BY enrollment_id`,
      [sequenceId]
    )
    expect(runs.rows).toHaveLength(subscribers.length)
    for (const row of runs.rows) {
      expect(row.steps).toEqual(["first", "pause", "second"])
      expect(row.ordinals).toEqual([0, 1, 2])
    }
    const mail = await db.query<{ subscriber_id: string; subjects: Array<string> }>(
      `SELECT subscriber_id, array_agg(subject ORDER BY subject) AS subjects FROM messages
       WHERE subscriber_id = ANY($1::uuid[]) GROUP BY subscriber_id`,
      [subscribers]
    )
    expect(mail.rows).toHaveLength(subscribers.length)
    for (const row of mail.rows) expect(row.subjects).toEqual(["First", "Second"])
  }

  /** How many due enrollments of the sequence another transaction holds under its row lock now. */
  const heldElsewhere = async (sequenceId: string) => {
    await db.query("BEGIN")
    try {
      const due = "FROM sequence_enrollments WHERE sequence_id = $1 AND state = 'active' AND next_run_at <= now()"
      const all = Number((await db.query(`SELECT count(*)::int AS n ${due}`, [sequenceId])).rows[0].n)
      const free = Number((await db.query(`SELECT count(*)::int AS n FROM (SELECT id ${due} FOR UPDATE SKIP LOCKED) x`, [sequenceId])).rows[0].n)
      return all - free
    } finally {
      await db.query("ROLLBACK")
    }
  }

  it("a worker killed in the middle of a batch leaves it to another, which runs each step once", async () => {
    const { id, subscribers } = await given("kill", 1_000)
    let workerA: RunningWorker | undefined
    let workerB: RunningWorker | undefined
    try {
      workerA = await startWorker(env)
      // Killed while its transaction holds a batch under the row lock.
      await waitUntil(async () => (await heldElsewhere(id)) > 0, "worker A holding a batch", 30_000)
      await workerA.kill()
      expect(await completed(id)).toBeLessThan(subscribers.length)
      // Its batch is rolled back once PostgreSQL sees its connection gone (a backend busy with a
      // statement sees it when it next speaks to the client): nothing is held then, and no
      // enrollment stands half-moved.
      await waitUntil(async () => (await heldElsewhere(id)) === 0, "worker A's batch let go", 20_000)
      workerB = await startWorker(env)
      await waitUntil(async () => (await completed(id)) === subscribers.length, "every enrollment completed", 60_000)
      await expectEachStepOnce(id, subscribers)
    } finally {
      await workerA?.kill()
      if (workerB !== undefined) expect(await workerB.stop()).toBe(0)
    }
  }, 180_000)

  it("two workers side by side share the enrollments, and run each step once", async () => {
    const { enroll, id, subscribers } = await given("pair", 600, false)
    const ports = [await freePort(), await freePort()]
    const workers = await Promise.all(ports.map((port) => startWorker({ ...env, WORKER_METRICS_PORT: String(port), METRICS_TOKEN })))
    try {
      await enroll()
      await waitUntil(async () => (await completed(id)) === subscribers.length, "every enrollment completed", 60_000)
      await expectEachStepOnce(id, subscribers)
      for (const port of ports) {
        const text = await (await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text()
        const claimed = Number(/^roster_worker_claimed_items_total\{job="sequences"\} (\d+)/m.exec(text)?.[1] ?? 0)
        expect(claimed, `worker on port ${port}`).toBeGreaterThan(0)
      }
    } finally {
      for (const worker of workers) expect(await worker.stop()).toBe(0)
    }
  }, 180_000)
})
