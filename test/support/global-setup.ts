import { randomBytes } from "node:crypto"
import { createConnection } from "node:net"
import type { TestProject } from "vitest/node"
import pg from "pg"
import { buildRoster } from "../../scripts/build.mjs"

/**
 * Once per `npm test`: builds `dist/` when the sources are newer, and finds the machine's
 * PostgreSQL and Redis. Where PostgreSQL answers, a
 * database of this run's own is created (and dropped at the end), so runs never see each other's
 * rows; where Redis answers, keys carry a prefix of this run's own (deleted at the end). Suites
 * that need a server read `inject("postgres")` / `inject("redis")` and skip themselves, saying
 * why, when it is absent.
 */

declare module "vitest" {
  export interface ProvidedContext {
    postgres: { readonly url: string | null; readonly server: string }
    /** A second database of the run, for suites that start the service's own processes. */
    postgresForProcesses: { readonly url: string | null; readonly server: string }
    redis: { readonly url: string | null; readonly server: string; readonly prefix: string }
  }
}

const adminUrl = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"
const redisUrl = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379"

const describeServer = (url: string) => {
  const u = new URL(url)
  return `${u.hostname}:${u.port || (u.protocol.startsWith("redis") ? "6379" : "5432")}`
}

const reachable = (url: string): Promise<boolean> =>
  new Promise((resolve) => {
    const u = new URL(url)
    const socket = createConnection({ host: u.hostname, port: Number(u.port || 6379) })
    socket.setTimeout(1000)
    socket.once("connect", () => socket.end(() => resolve(true)))
    socket.once("timeout", () => (socket.destroy(), resolve(false)))
    socket.once("error", () => resolve(false))
  })

const withAdmin = async <A>(f: (client: pg.Client) => Promise<A>): Promise<A> => {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 2000 })
  await client.connect()
  try {
    return await f(client)
  } finally {
    await client.end()
  }
}

export default async function setup(project: TestProject) {
  // The end-to-end suites start the compiled programs, as `npm start` does.
  await buildRoster()
  const runId = `${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`
  const databases = [`roster_test_${runId}`, `roster_test_${runId}_processes`]

  const created: Array<string> = []
  try {
    for (const database of databases) {
      await withAdmin((c) => c.query(`CREATE DATABASE ${database}`))
      created.push(database)
    }
  } catch {
    // No server, or no right to create databases: the suites that need one skip themselves.
  }
  const urlOf = (database: string) => {
    if (!created.includes(database)) return null
    const u = new URL(adminUrl)
    u.pathname = `/${database}`
    return u.toString()
  }
  project.provide("postgres", { url: urlOf(databases[0]!), server: describeServer(adminUrl) })
  project.provide("postgresForProcesses", { url: urlOf(databases[1]!), server: describeServer(adminUrl) })

  const prefix = `roster-test:${runId}:`
  const redisUp = await reachable(redisUrl)
  project.provide("redis", { url: redisUp ? redisUrl : null, server: describeServer(redisUrl), prefix })

  return async () => {
    if (created.length > 0) {
      // The run's databases and those its process suites made beside them.
      const ours = await withAdmin((c) =>
        c.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE $1", [`roster_test_${runId}%`]))
      for (const { datname } of ours.rows) {
        await withAdmin((c) => c.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`))
      }
    }
    if (redisUp) {
      const { Redis } = await import("ioredis")
      const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 })
      await redis.connect()
      let cursor = "0"
      do {
        const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000)
        if (keys.length > 0) await redis.del(...keys)
        cursor = next
      } while (cursor !== "0")
      await redis.quit()
    }
  }
}
