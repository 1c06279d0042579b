import { spawn } from "node:child_process"
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type pg from "pg"
import { to as copyTo } from "pg-copy-streams"
import { OrganizationId } from "@roster/domain"
import { exportQuery } from "../adapters/postgres/postgres-subscriber-repository.js"
import { cpuSeconds, makeServerCpu } from "./stats.js"

/**
 * The CSV half of `npm run bench` (BENCH_SUITE=imports): `roster subscribers import` of a file
 * of BENCH_IMPORT_ROWS (1,000,000) new subscribers (names, a status column left empty, two tags,
 * two metadata columns) into an organization of the bench's PostgreSQL, then the same file again
 * (every row found and unchanged), then imports that make new tags (`runTagBench`), then
 * `roster subscribers export` of them all: rows a second, and each process's peak RSS (VmHWM,
 * read from /proc while it runs), as operators run them, and the CPU time a row of the CLI and of
 * its server backends (read from /proc too, when the server runs on this machine). Beside the first import and the export,
 * PostgreSQL alone doing the same database work (`importFloor`, `exportFloor`): how near the
 * programs come to what the server itself allows on the machine.
 */

const rows = Number(process.env.BENCH_IMPORT_ROWS ?? 1_000_000)
/** Organizations the tag run makes its tags in: as many as an organization may hold (1,000) in each. */
const tagOrganizations = Number(process.env.BENCH_IMPORT_TAG_ORGS ?? 20)
/** The most tags an organization may hold (MAX_TAGS_PER_ORGANIZATION). */
const TAGS_PER_ORGANIZATION = 1_000

export interface ImportBenchContext {
  readonly env: NodeJS.ProcessEnv
  readonly pool: pg.Pool
  readonly root: string
  readonly cli: (env: NodeJS.ProcessEnv, ...args: Array<string>) => unknown
}

const writeFile = (path: string, count: number) =>
  new Promise<void>((resolve, reject) => {
    const out = createWriteStream(path)
    out.on("error", reject)
    out.write("email,first_name,last_name,status,tags,metadata.plan,metadata.city\n")
    let i = 0
    const more = () => {
      while (i < count) {
        const line = `reader${i}@example.com,Reader${i},Lovelace,,"Weekly, News",${i % 3 === 0 ? "pro" : "free"},Berlin\n`
        i++
        if (!out.write(line)) return void out.once("drain", more)
      }
      out.end(resolve)
    }
    more()
  })

/** Runs the CLI to the end, its stdout to `stdout` (or kept), sampling its peak RSS and the CPU time it and the server spend. */
const timed = (context: ImportBenchContext, args: ReadonlyArray<string>, stdout?: string) =>
  new Promise<{
    readonly seconds: number
    readonly peakMb: number
    readonly output: string
    readonly cliCpu: number
    readonly serverCpu: number
  }>((resolve, reject) => {
    const server = makeServerCpu(new URL(context.env.DATABASE_URL!).pathname.slice(1))
    const startedAt = performance.now()
    const child = spawn(process.execPath, ["dist/cli.mjs", ...args], {
      cwd: context.root,
      env: context.env,
      stdio: ["ignore", stdout === undefined ? "pipe" : "pipe", "pipe"]
    })
    let output = ""
    let errors = ""
    const sink = stdout === undefined ? undefined : createWriteStream(stdout)
    child.stdout!.on("data", (chunk: Buffer) => (sink === undefined ? (output += chunk) : sink.write(chunk)))
    child.stderr!.on("data", (chunk: Buffer) => (errors += chunk))
    let peakKb = 0
    let cliCpu = 0
    const sample = setInterval(() => {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, "utf8")
        peakKb = Math.max(peakKb, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0))
      } catch {
        // the process has just ended
      }
      cliCpu = cpuSeconds(child.pid!) ?? cliCpu
      server.sample()
    }, 200)
    child.on("close", (code) => {
      clearInterval(sample)
      server.sample()
      sink?.end()
      if (code !== 0) return reject(new Error(`roster ${args.join(" ")} exited ${code}: ${errors}`))
      resolve({ seconds: (performance.now() - startedAt) / 1000, peakMb: peakKb / 1024, output, cliCpu, serverCpu: server.seconds() })
    })
  })

/**
 * New tags made by imports: in each of BENCH_IMPORT_TAG_ORGS (20) organizations, a file of 1,000
 * new subscribers, each row naming a tag of its own (an organization holds at most 1,000), then
 * a file of 1,000 other new subscribers naming the same tags, which now exist. The making of the
 * tags is the time the first takes over the second: tags a second over that.
 */
const runTagBench = async (context: ImportBenchContext, dir: string) => {
  const making = join(dir, "tags.csv")
  const naming = join(dir, "tags-again.csv")
  const file = (path: string, reader: string) =>
    writeFileSync(path, ["email,tags", ...Array.from({ length: TAGS_PER_ORGANIZATION }, (_, i) => `${reader}${i}@example.com,Topic ${i}`)].join("\n") + "\n")
  file(making, "tagger")
  file(naming, "reader")
  let made = 0
  let found = 0
  for (let i = 0; i < tagOrganizations; i++) {
    const slug = `tags-${i}`
    context.cli(context.env, "org", "create", "--name", slug, "--slug", slug, "--tier", "enterprise")
    for (const [path, add] of [[making, (s: number) => (made += s)], [naming, (s: number) => (found += s)]] as const) {
      const run = await timed(context, ["subscribers", "import", path, "--org", slug])
      const report = JSON.parse(run.output) as { created: number; failed: number }
      if (report.created !== TAGS_PER_ORGANIZATION || report.failed !== 0) throw new Error(`the tag import made ${report.created} rows`)
      add(run.seconds)
    }
  }
  const tags = tagOrganizations * TAGS_PER_ORGANIZATION
  const seconds = made - found
  console.log(`${`import making ${tags.toLocaleString("en-US")} new tags`.padEnd(34)} ${Math.round(tags / seconds).toLocaleString("en-US").padStart(9)} tags/s  ` +
    `${seconds.toFixed(1).padStart(6)} s  (${tagOrganizations} organizations × ${TAGS_PER_ORGANIZATION.toLocaleString("en-US")}: ` +
    `${made.toFixed(1)} s of imports making them less ${found.toFixed(1)} s naming them made)   (target ≥ 5,000 tags/s)`)
}

/** The CPU time a connection's server backend spends from now on (0 when the server runs on another machine). */
const backendOf = async (client: pg.PoolClient) => {
  const pid = (await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid
  const start = cpuSeconds(pid)
  return { cpu: () => start === undefined ? 0 : (cpuSeconds(pid) ?? start) - start }
}

/**
 * PostgreSQL alone doing an import's writes, for the figure beside the import's: the rows the
 * import made (subscribers, their tags, their `subscriber.created` events) written again, as
 * another organization's, by three `INSERT ... SELECT` in one transaction that is rolled back:
 * every index and foreign key of the tables, and no client at all. Ids keep their order (the
 * first hex digit changed), as the import's time-ordered ids do.
 */
const importFloor = async (context: ImportBenchContext, organizationId: string, into: string) => {
  const client = await context.pool.connect()
  try {
    const backend = await backendOf(client)
    const startedAt = performance.now()
    await client.query("BEGIN")
    await client.query("SET LOCAL synchronous_commit = off")
    const again = (column: string) => `('f' || substr(${column}::text, 2))::uuid`
    await client.query(
      `INSERT INTO subscribers (id, organization_id, email, email_key, status, metadata, first_name, last_name, created_at, updated_at)
       SELECT ${again("id")}, $2, email, email_key, status, metadata, first_name, last_name, created_at, updated_at
       FROM subscribers WHERE organization_id = $1 ORDER BY id`,
      [organizationId, into]
    )
    await client.query(
      `INSERT INTO subscriber_tags (subscriber_id, tag_id, subscribed_at)
       SELECT ${again("st.subscriber_id")}, st.tag_id, st.subscribed_at
       FROM subscriber_tags st JOIN subscribers s ON s.id = st.subscriber_id WHERE s.organization_id = $1 ORDER BY st.subscriber_id`,
      [organizationId]
    )
    await client.query(
      `INSERT INTO outbox_events (id, organization_id, type, occurred_at, data)
       SELECT ${again("id")}, $2, type, occurred_at, data
       FROM outbox_events WHERE organization_id = $1 AND type = 'subscriber.created' ORDER BY position`,
      [organizationId, into]
    )
    const seconds = (performance.now() - startedAt) / 1000
    const serverCpu = backend.cpu()
    await client.query("ROLLBACK")
    return { seconds, serverCpu }
  } finally {
    client.release()
  }
}

/** PostgreSQL alone running an export's statement (`exportQuery`), its COPY text read and dropped. */
const exportFloor = async (context: ImportBenchContext, organizationId: string) => {
  const { rows: keys } = await context.pool.query<{ key: string }>(
    `SELECT DISTINCT keys.key COLLATE "C" AS key FROM subscribers, jsonb_object_keys(subscribers.metadata) AS keys (key)
     WHERE organization_id = $1 ORDER BY 1`,
    [organizationId]
  )
  const client = await context.pool.connect()
  try {
    const backend = await backendOf(client)
    const startedAt = performance.now()
    const query = exportQuery(OrganizationId.make(organizationId), { metadataKeys: keys.map((k) => k.key) })
    const stream = client.query(copyTo(`COPY (${query}) TO STDOUT`))
    await new Promise<void>((resolve, reject) => {
      stream.on("data", () => {})
      stream.on("end", resolve)
      stream.on("error", reject)
    })
    return { seconds: (performance.now() - startedAt) / 1000, serverCpu: backend.cpu() }
  } finally {
    client.release()
  }
}

export const runImportBench = async (context: ImportBenchContext) => {
  const dir = mkdtempSync(join(tmpdir(), "roster-bench-import-"))
  try {
    const file = join(dir, "subscribers.csv")
    await writeFile(file, rows)
    const megabytes = statSync(file).size / 1024 / 1024
    context.cli(context.env, "org", "create", "--name", "Imports", "--slug", "imports", "--tier", "enterprise")
    console.log(`CSV import and export: ${rows.toLocaleString("en-US")} rows (${megabytes.toFixed(0)} MB) on PostgreSQL ` +
      `${(await context.pool.query("SHOW server_version")).rows[0].server_version}, node ${process.version}\n`)
    const perSecond = (seconds: number) => Math.round(rows / seconds).toLocaleString("en-US").padStart(9)
    // CPU time a row, which a busy machine changes far less than rows a second.
    const perRow = (seconds: number) => `${(seconds / rows * 1e6).toFixed(0).padStart(4)} µs`
    const report = (what: string, result: { seconds: number; peakMb: number; cliCpu: number; serverCpu: number }, target: string) =>
      console.log(`${what.padEnd(34)} ${perSecond(result.seconds)} rows/s  ` +
        `${result.seconds.toFixed(1).padStart(6)} s  peak RSS ${result.peakMb.toFixed(0).padStart(4)} MB   (${target})\n` +
        `${"".padEnd(34)} CPU a row: roster ${perRow(result.cliCpu)}, PostgreSQL ${perRow(result.serverCpu)}`)
    const floor = (what: string, { seconds, serverCpu }: { seconds: number; serverCpu: number }) =>
      console.log(`${`  ${what}`.padEnd(34)} ${perSecond(seconds)} rows/s  ${seconds.toFixed(1).padStart(6)} s  ` +
        `CPU a row: PostgreSQL ${perRow(serverCpu)}`)
    const organizationOf = async (slug: string) =>
      (await context.pool.query<{ id: string }>("SELECT id FROM organizations WHERE slug = $1", [slug])).rows[0]!.id

    const first = await timed(context, ["subscribers", "import", file, "--org", "imports"])
    const firstReport = JSON.parse(first.output) as { created: number; failed: number }
    if (firstReport.created !== rows || firstReport.failed !== 0) throw new Error(`the import made ${firstReport.created} of ${rows}`)
    report("import, every row new", first, "target ≥ 50,000 rows/s, ≤ 200 MB")
    context.cli(context.env, "org", "create", "--name", "Floor", "--slug", "floor", "--tier", "enterprise")
    const imports = await organizationOf("imports")
    floor("PostgreSQL alone, the same writes", await importFloor(context, imports, await organizationOf("floor")))

    const again = await timed(context, ["subscribers", "import", file, "--org", "imports"])
    const againReport = JSON.parse(again.output) as { unchanged: number }
    if (againReport.unchanged !== rows) throw new Error(`the second import left ${againReport.unchanged} of ${rows} unchanged`)
    report("import again, every row unchanged", again, "")

    await runTagBench(context, dir)

    const exported = await timed(context, ["subscribers", "export", "--org", "imports"], join(dir, "exported.csv"))
    report("export", exported, "target ≥ 250,000 rows/s, ≤ 200 MB")
    floor("PostgreSQL alone, its statement", await exportFloor(context, imports))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
