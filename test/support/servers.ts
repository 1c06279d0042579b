import pg from "pg"
import { inject } from "vitest"

/**
 * The real servers of this test run. A suite that needs one names itself with `label`, so that on
 * a machine without the server it shows as "skipped: no PostgreSQL at 127.0.0.1:5432".
 */
export const postgres = (() => {
  const { server, url } = inject("postgres")
  return { url, available: url !== null, label: url === null ? `skipped: no PostgreSQL at ${server}` : `PostgreSQL at ${server}` }
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
    label: url === null ? `skipped: no PostgreSQL at ${server}` : `PostgreSQL at ${server}`,
    database
  }
})()

export const redis = (() => {
  const { prefix, server, url } = inject("redis")
  return { url, prefix, available: url !== null, label: url === null ? `skipped: no Redis at ${server}` : `Redis at ${server}` }
})()
