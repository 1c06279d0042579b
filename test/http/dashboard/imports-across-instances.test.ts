/**
 * The import screen served by two instances of the service on one PostgreSQL database, as behind
 * a load balancer without sticky sessions: a file uploaded through one is previewed, started or
 * given up through the other, because between its preview and its start it is a draft import in
 * the database, not a file of the instance that took it.
 */
import { Organizations } from "@roster/application"
import { Effect, Layer, Redacted } from "effect"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makePgClient, PostgresPersistenceLive, runMigrations } from "../../../adapters/postgres/index.js"
import { startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../../support/http-server.js"
import { postgresForProcesses } from "../../support/servers.js"
import { runImports } from "../../support/worker-steps.js"
import { freshEmail } from "../helpers.js"
import { type Browser, browser, csrfOf, ownerWithOrganization, type Page } from "./dashboard-browser.js"

const csv = (...lines: ReadonlyArray<string>) => lines.map((line) => `${line}\n`).join("")
const csvFile = (text: string) => new Blob([text], { type: "text/csv" })
const locationOf = (page: Page) => page.headers.get("location") ?? ""

describe.skipIf(!postgresForProcesses.available)(`two instances of the service over ${postgresForProcesses.label}`, () => {
  let first: TestHttpServer
  let second: TestHttpServer
  let database: pg.Client

  beforeAll(async () => {
    const url = await postgresForProcesses.database("dashboard_imports_across_instances")
    const client = makePgClient(Redacted.make(url))
    await Effect.runPromise(Effect.scoped(Layer.build(Layer.effectDiscard(runMigrations).pipe(Layer.provide(client)))))
    // Each server builds its own pool over the one database.
    const adapters = Layer.merge(UnlimitedRateLimiterLive, PostgresPersistenceLive.pipe(Layer.provide(client), Layer.orDie))
    first = await startHttpServer({ adapters })
    second = await startHttpServer({ adapters })
    database = new pg.Client({ connectionString: url })
    await database.connect()
  }, 60_000)

  afterAll(async () => {
    await database?.end()
    await Promise.all([first?.close(), second?.close()])
  })

  /** An organization made on the first instance, and its owner's browser on each. */
  const ownerOnBoth = async () => {
    const owner = await ownerWithOrganization(first)
    const cookie = [...owner.b.jar].map(([name, value]) => `${name}=${value}`).join("; ")
    const organization = await first.run(Effect.flatMap(Organizations, (organizations) => organizations.getBySlug(owner.slug)))
    return { ...owner, organizationId: organization.id, onFirst: owner.b, onSecond: browser(second, cookie) }
  }

  const upload = async (b: Browser, base: string, text: string) => {
    const screen = await b.get(`${base}/imports`)
    const uploaded = await b.postMultipart(`${base}/imports`, [["csrf", csrfOf(screen)], ["file", csvFile(text), "members.csv"]])
    expect(uploaded.status, uploaded.body).toBe(303)
    return locationOf(uploaded)
  }

  /** The organization's imports as the database holds them. */
  const importsOf = async (organizationId: string) =>
    (await database.query<{ status: string; draft: boolean; parts: number }>(
      `SELECT j.status, j.draft, (SELECT count(*)::integer FROM import_job_parts p WHERE p.job_id = j.id) AS parts
       FROM import_jobs j WHERE j.organization_id = $1`,
      [organizationId]
    )).rows

  it("a file uploaded through one instance is previewed and started through the other, and run", async () => {
    const { base, organizationId, onFirst, onSecond } = await ownerOnBoth()
    const [ada, grace] = [freshEmail("ada"), freshEmail("grace")]
    const draft = await upload(onFirst, base, csv("email,first_name,Member Rating", `${ada},Ada,5`, `${grace},Grace,4`))
    // The file is in the database, a draft no worker takes.
    expect(await importsOf(organizationId)).toEqual([{ status: "receiving", draft: true, parts: 1 }])
    expect(await second.run(runImports)).toBe(0)

    const preview = await onSecond.get(draft)
    expect(preview.status, preview.body).toBe(200)
    expect(preview.body).toContain("Preview of members.csv")
    expect(preview.body).toContain("2 rows after the header line")
    expect(preview.body).toContain(`<tr><td class="number">2</td><td>${ada}</td><td>Ada</td>`)
    expect(preview.body).toContain("Not imported (unknown columns): Member Rating")

    const started = await onSecond.post(draft, { csrf: csrfOf(preview), rows: "2" })
    expect(started.status, started.body).toBe(303)
    const jobPage = locationOf(started)
    expect(jobPage).toMatch(new RegExp(`^${base}/imports/[0-9a-f-]{36}\\?rows=2$`))
    expect(await importsOf(organizationId)).toEqual([{ status: "queued", draft: false, parts: 1 }])
    // Neither instance has the draft any more.
    expect(locationOf(await onFirst.get(draft))).toBe(`${base}/imports`)

    expect(await first.run(runImports)).toBe(1)
    const done = await onFirst.get(jobPage.split("?")[0]!)
    expect(done.status).toBe(200)
    expect(done.body).toContain("Completed")
    expect(done.body).toMatch(/<dt>Created<\/dt><dd>2<\/dd>/)
    expect(await importsOf(organizationId)).toEqual([{ status: "completed", draft: false, parts: 0 }])
  })

  it("a file uploaded through one instance is given up through the other, and gone from both", async () => {
    const { base, organizationId, onFirst, onSecond } = await ownerOnBoth()
    const draft = await upload(onSecond, base, csv("email", freshEmail()))
    const preview = await onFirst.get(draft)
    expect(preview.status).toBe(200)
    expect((await onFirst.post(`${draft}/discard`, { csrf: csrfOf(preview) })).status).toBe(303)
    expect(await importsOf(organizationId)).toEqual([])
    for (const b of [onFirst, onSecond]) {
      const gone = await b.get(draft)
      expect(gone.status).toBe(303)
      expect(locationOf(gone)).toBe(`${base}/imports`)
    }
    const start = await onSecond.post(draft, { csrf: csrfOf(preview), rows: "1" })
    expect(locationOf(start)).toBe(`${base}/imports`)
    expect((await onSecond.get(`${base}/imports`)).body).toContain("No imports yet.")
  })
})
