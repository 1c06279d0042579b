import { type ChildProcess, spawn } from "node:child_process"
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freePort } from "../support/processes.js"
import { postgresForProcesses as postgres } from "../support/servers.js"

/**
 * The container image, as far as a machine without Docker can check it: the runtime stage's
 * files, copied as the Dockerfile copies them, are enough to run every program through the
 * image's entry point with the image's environment.
 */

const root = fileURLToPath(new URL("../..", import.meta.url))
const dockerfile = readFileSync(join(root, "Dockerfile"), "utf8")
const runtimeStage = dockerfile.slice(dockerfile.indexOf("AS runtime"))

/** `COPY --from=build /src/<from> ./<to>` lines of the runtime stage. */
const copies = [...runtimeStage.matchAll(/^COPY --from=build \/src\/(\S+) \.\/(\S+)$/gm)].map((m) => ({ from: m[1]!, to: m[2]! }))

/** The runtime stage's `ENV` settings. */
const imageEnv = (() => {
  const block = /^ENV ((?:.*\\\n)*.*)$/m.exec(runtimeStage)?.[1] ?? ""
  return Object.fromEntries([...block.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]))
})()

let image: string
let dataDir: string
beforeAll(() => {
  image = mkdtempSync(join(tmpdir(), "roster-image-"))
  dataDir = mkdtempSync(join(tmpdir(), "roster-image-data-"))
  for (const { from, to } of copies) {
    mkdirSync(dirname(join(image, to)), { recursive: true })
    cpSync(join(root, from), join(image, to), { recursive: true })
  }
})
afterAll(() => {
  rmSync(image, { recursive: true, force: true })
  rmSync(dataDir, { recursive: true, force: true })
})

const environment = (extra: Record<string, string>) => ({
  PATH: process.env.PATH!,
  ...imageEnv,
  DATA_DIR: dataDir,
  SESSION_SECRET: "s".repeat(32),
  ALLOW_CONSOLE_MAILER: "true",
  LOG_LEVEL: "warning",
  ...extra
})

/** Runs the image's entry point with `args`, as `docker run roster <args>` does. */
const entry = (args: ReadonlyArray<string>, env: Record<string, string>) =>
  spawn("/bin/sh", [join(image, "docker/roster"), ...args], { cwd: "/", env: environment(env) })

const finished = (child: ChildProcess) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    let stdout = ""
    let stderr = ""
    child.stdout!.on("data", (chunk) => (stdout += chunk))
    child.stderr!.on("data", (chunk) => (stderr += chunk))
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

const until = async (what: string, check: () => Promise<boolean> | boolean, ms = 60_000) => {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (await Promise.resolve().then(check).catch(() => false)) return
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`timed out waiting for ${what}`)
}

describe("the container image", () => {
  it("copies the programs, PGlite and Redoc's bundle, and runs as production by default", () => {
    expect(copies.map((c) => c.from)).toEqual(
      expect.arrayContaining(["dist", "node_modules/@electric-sql/pglite", "node_modules/piscina", "docker/roster"])
    )
    expect(imageEnv).toMatchObject({ NODE_ENV: "production", HOST: "0.0.0.0", PORT: "3000" })
    expect(runtimeStage).toMatch(/^USER node$/m)
  })

  it("starts each program with the Node.js flags of its npm script", () => {
    const scripts = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).scripts as Record<string, string>
    const entryPoint = readFileSync(join(root, "docker/roster"), "utf8")
    for (const program of ["api", "start", "worker", "cli"]) {
      // The image holds its build: the program runs straight from dist/, not through the build check.
      const command = scripts[program]!.replace(`scripts/run.mjs ${program}`, `dist/${program}.mjs`)
      expect(command).not.toContain("scripts/run.mjs")
      expect(entryPoint, program).toContain(`  ${program}) exec ${command} "$@" ;;`)
    }
  })

  it("runs the CLI and the API on the embedded database, Redoc, Swagger UI and template rendering included, and stops on SIGTERM", async () => {
    const migrated = await finished(entry(["cli", "migrate"], {}))
    expect(migrated.code, migrated.stderr).toBe(0)
    expect(JSON.parse(migrated.stdout)).toEqual({ migrated: true })
    const organization = await finished(entry(["cli", "org", "create", "--name", "Acme", "--slug", "acme"], {}))
    expect(organization.code, organization.stderr).toBe(0)
    const issued = await finished(entry(["cli", "api-key", "create", "--org", "acme", "--name", "Image", "--scopes", "*"], {}))
    expect(issued.code, issued.stderr).toBe(0)
    const key = JSON.parse(issued.stdout).key as string

    const port = await freePort()
    const api = entry(["api"], { PORT: String(port), HOST: "127.0.0.1" })
    const ended = finished(api)
    try {
      await until("the API", async () => (await fetch(`http://127.0.0.1:${port}/health`)).ok)
      const redoc = await fetch(`http://127.0.0.1:${port}/redoc/redoc.standalone.js`)
      expect(redoc.status).toBe(200)
      const swagger = await fetch(`http://127.0.0.1:${port}/docs/swagger-ui-bundle.js`)
      expect(swagger.status).toBe(200)
      // Templates render in threads started from dist/ with the pool's own files from node_modules.
      const headers = { "x-api-key": key, "content-type": "application/json" }
      const made = await fetch(`http://127.0.0.1:${port}/api/v1/templates`, {
        method: "POST",
        headers,
        body: JSON.stringify({ name: "Hello", subject: "Hi {{ subscriber.first_name }}", text: "Hello" })
      })
      expect(made.status).toBe(201)
      const { id } = await made.json() as { id: string }
      const preview = await fetch(`http://127.0.0.1:${port}/api/v1/templates/${id}/preview`, { method: "POST", headers, body: "{}" })
      expect(preview.status).toBe(200)
      expect(await preview.json()).toMatchObject({ subject: "Hi Jane", text: "Hello" })
    } finally {
      api.kill("SIGTERM")
    }
    expect((await ended).code).toBe(0)
  }, 120_000)

  it("refuses a command it does not know, naming the ones it does", async () => {
    const answer = await finished(entry(["serve"], {}))
    expect(answer.code).toBe(64)
    expect(answer.stderr.trim()).toBe("roster: unknown command 'serve'; use api, worker, start or cli")
  })
})

describe.skipIf(!postgres.available)(`the container's worker (${postgres.label})`, () => {
  it("writes its heartbeat file while its database answers, and serves its metrics on its own port", async () => {
    const databaseUrl = await postgres.database("container_worker")
    const heartbeat = join(dataDir, "worker.alive")
    const migrated = await finished(entry(["cli", "migrate"], { DATABASE_URL: databaseUrl }))
    expect(migrated.code, migrated.stderr).toBe(0)
    const port = await freePort()
    const token = "worker-metrics-token-0123"
    // Written by this worker, not left from before: no older than the worker.
    const startedAt = Math.floor(Date.now() / 1000) * 1000
    const worker = entry(["worker"], {
      DATABASE_URL: databaseUrl,
      WORKER_HEARTBEAT_FILE: heartbeat,
      WORKER_METRICS_PORT: String(port),
      METRICS_TOKEN: token,
      HOST: "127.0.0.1"
    })
    const ended = finished(worker)
    try {
      await until("the heartbeat file", () => existsSync(heartbeat), 30_000)
      expect(statSync(heartbeat).mtimeMs).toBeGreaterThanOrEqual(startedAt)
      expect(Date.parse(readFileSync(heartbeat, "utf8").trim())).toBeGreaterThanOrEqual(startedAt)

      const metrics = `http://127.0.0.1:${port}/metrics`
      expect((await fetch(metrics)).status).toBe(401)
      const answer = await fetch(metrics, { headers: { authorization: `Bearer ${token}` } })
      expect(answer.status).toBe(200)
      const text = await answer.text()
      expect(text).toMatch(/roster_worker_batches_total\{job="[^"]+"\} [1-9]/)
      expect(text).toMatch(/roster_db_pool_connections\{state="total"\} [1-9]/)
      expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404)
    } finally {
      worker.kill("SIGTERM")
    }
    expect((await ended).code).toBe(0)
  }, 120_000)
})
