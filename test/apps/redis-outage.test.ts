import { describe, expect, it } from "vitest"
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort, run, start } from "../support/processes.js"

/**
 * Redis going away and coming back under a running API, with a Redis server of this test's own on
 * a free port so that nothing else is disturbed.
 */

const redisServer = spawnSync("redis-server", ["--version"]).status === 0
const label = redisServer
  ? "Redis outage under a running API"
  : "Redis outage under a running API (skipped: no redis-server on the PATH; apt-get install -y redis-server)"

const startRedis = async (port: number): Promise<ChildProcess> => {
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
    stdio: "ignore"
  })
  for (let i = 0; i < 100; i++) {
    if (spawnSync("redis-cli", ["-p", String(port), "ping"]).stdout?.toString().includes("PONG")) return child
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error("redis-server did not start")
}

const stopRedis = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once("exit", () => resolve())
    child.kill("SIGKILL")
  })

const eventually = async <A>(probe: () => Promise<A | undefined>, what: string): Promise<A> => {
  for (let i = 0; i < 100; i++) {
    const result = await probe()
    if (result !== undefined) return result
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`${what} did not happen within 10 seconds`)
}

describe.skipIf(!redisServer)(label, () => {
  it("requests are served while Redis is away and /ready says so; limits count again when it is back", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "roster-redis-"))
    const port = await freePort()
    let redis = await startRedis(port)
    try {
      const env = { DATA_DIR: dataDir, REDIS_URL: `redis://127.0.0.1:${port}` }
      expect((await run("cli", ["org", "create", "--name", "Acme", "--slug", "acme"], env)).code).toBe(0)
      const key = JSON.parse((await run("cli", ["api-key", "create", "--org", "acme", "--name", "k", "--scopes", "*"], env)).stdout).key as string
      const api = await start("api", env)
      try {
        const list = () => fetch(`${api.url}/api/v1/subscribers`, { headers: { "x-api-key": key } })
        const first = await list()
        expect(first.status).toBe(200)
        expect(first.headers.get("x-ratelimit-limit")).toBe("100")
        const before = Number((await list()).headers.get("x-ratelimit-remaining"))
        expect(before).toBe(98)

        await stopRedis(redis)
        const during = await list()
        expect(during.status).toBe(200)
        const ready = await eventually(async () => {
          const response = await fetch(`${api.url}/ready`)
          return response.status === 503 ? (await response.json()) as { checks: { cache: string; database: string } } : undefined
        }, "/ready reporting the cache")
        expect(ready.checks).toEqual({ database: "ok", cache: "error" })

        redis = await startRedis(port)
        await eventually(async () => ((await fetch(`${api.url}/ready`)).status === 200 ? true : undefined), "/ready recovering")
        // The restarted Redis is empty: counting starts again in a fresh window.
        const after = await eventually(async () => {
          const response = await list()
          const remaining = Number(response.headers.get("x-ratelimit-remaining"))
          return remaining < 100 ? remaining : undefined
        }, "limits counting again")
        expect(after).toBe(99)
        expect(Number((await list()).headers.get("x-ratelimit-remaining"))).toBe(98)
      } finally {
        expect(await api.stop()).toBe(0)
      }
    } finally {
      await stopRedis(redis)
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 120_000)
})
