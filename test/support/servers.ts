import pg from "pg"
import { inject } from "vitest"

/**
 * The real servers of this test run. A suite that needs one names itself with `label`, so that on
 * a machine without the server it shows as "skipped: no PostgreSQL at 127.0.0.1:5432; start it
 * with ...", naming the command that starts it and the variable that points the tests elsewhere
 * (the README's "Development" says more).
 */
const absentPostgres = (server: string) =>
  `skipped: no PostgreSQL at ${server}; start it with ` +
  "`pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start`, " +
  "or set TEST_DATABASE_URL"

const absentRedis = (server: string) =>
  `skipped: no Redis at ${server}; start it with ` +
  "`redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save \"\" --appendonly no`, " +
  "or set TEST_REDIS_URL"

/** `title` as it stands where `server` runs; with `server`'s reason for skipping where it does not. */
export const whenRunning = (server: { readonly available: boolean; readonly label: string }, title: string): string =>
  server.available ? title : `${title} (${server.label})`

export const postgres = (() => {
  const { server, url } = inject("postgres")
  return { url, available: url !== null, label: url === null ? absentPostgres(server) : `PostgreSQL at ${server}` }
})()

/**
 * Databases for the service's own processes, apart from the contract suites'. Workers claim
 * whatever is due in their database, so every file that starts them takes a database of its own
 * with `database(name)`; the run drops them all at its end.
 */
export const postgresForProcesses = (() => {
  const { server, url } = inject("postgresForProcesses")
  const database = async (name: string): Promise<string> => {
    if (url === null) throw new Error("no PostgreSQL for the service's processes")
    const own = new URL(url)
    own.pathname = `${own.pathname}_${name.replace(/[^a-z0-9]/g, "_")}`
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      await client.query(`CREATE DATABASE ${own.pathname.slice(1)}`)
    } finally {
      await client.end()
    }
    return own.toString()
  }
  return {
    available: url !== null,
    label: url === null ? absentPostgres(server) : `PostgreSQL at ${server}`,
    database
  }
})()

export const redis = (() => {
  const { prefix, server, url } = inject("redis")
  return { url, prefix, available: url !== null, label: url === null ? absentRedis(server) : `Redis at ${server}` }
})()
