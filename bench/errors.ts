import { type ChildProcess, spawn } from "node:child_process"
import { measure, printTable, ratio, type RunFigures } from "./stats.js"

/**
 * The error answers of both wire forms: 429 to a client without a credential past its 100 requests
 * a minute, 404 for a path no route has and 400 for an id that is not one, each beside `/health`
 * of the same process (the cheapest answer it gives), so that the ratios say what an error costs
 * over a bare answer on this machine.
 * BENCH_ERROR_REQUESTS (3000) sizes each run.
 */

export interface ErrorBenchContext {
  readonly env: NodeJS.ProcessEnv
  readonly root: string
  readonly concurrency: number
  readonly freePort: () => Promise<number>
  readonly waitReady: (base: string, server: ChildProcess) => Promise<void>
  readonly cli: (env: NodeJS.ProcessEnv, ...args: Array<string>) => { readonly key: string }
}

/** Within the requests a minute of one enterprise organization, two runs with its key. */
const requests = Number(process.env.BENCH_ERROR_REQUESTS ?? 3000)

const expecting = (status: number, url: string, headers: Record<string, string> = {}) => async () => {
  const res = await fetch(url, { headers })
  await res.arrayBuffer()
  if (res.status !== status) throw new Error(`${url} answered ${res.status}, not ${status}`)
}

export const runErrorBench = async (context: ErrorBenchContext): Promise<void> => {
  for (const form of ["reference", "overview"] as const) {
    const port = await context.freePort()
    const base = `http://127.0.0.1:${port}`
    const server = spawn(process.execPath, ["dist/api.mjs"], {
      cwd: context.root,
      env: { ...context.env, API_FORM: form, PORT: String(port), MIGRATE: "false" },
      stdio: ["ignore", "ignore", "inherit"]
    })
    try {
      await context.waitReady(base, server)
      context.cli(context.env, "org", "create", "--name", `Errors ${form}`, "--slug", `errors-${form}`, "--tier", "enterprise")
      const { key: apiKey } = context.cli(context.env, "api-key", "create", "--org", `errors-${form}`, "--name", "bench", "--scopes", "*")
      const api = form === "reference" ? "/api/v1" : "/v1"
      const key = { "x-api-key": apiKey }
      const run = (label: string, task: () => Promise<void>) => measure(`${form.padEnd(9)} ${label}`, requests, context.concurrency, task)
      // Past the first 100 a minute, a client without a credential is refused 429.
      await run("warm-up", async () => void await (await fetch(`${base}${api}/subscribers`)).arrayBuffer())
      const health = await run("200 GET /health", expecting(200, `${base}/health`))
      const rows: Array<RunFigures> = [
        await run(`429 GET ${api}/subscribers, no key`, expecting(429, `${base}${api}/subscribers`)),
        await run(`404 GET ${api}/nothing-here`, expecting(404, `${base}${api}/nothing-here`, key)),
        await run(`400 GET ${api}/subscribers/not-an-id`, expecting(400, `${base}${api}/subscribers/not-an-id`, key))
      ]
      console.log(`\nErrors, ${form} form: ${requests} requests a run, ${context.concurrency} in flight`)
      printTable([health, ...rows])
      for (const row of rows) ratio(`${row.label.slice(10)}: per s / /health per s`, row.perSecond, health.perSecond)
    } finally {
      server.kill("SIGTERM")
      await new Promise((r) => server.once("exit", r))
    }
  }
}
