import { inject } from "vitest"

/**
 * The real servers of this test run. A suite that needs one names itself with `label`, so that on
 * a machine without the server it shows as "skipped: no PostgreSQL at 127.0.0.1:5432".
 */
export const postgres = (() => {
  const { server, url } = inject("postgres")
  return { url, available: url !== null, label: url === null ? `skipped: no PostgreSQL at ${server}` : `PostgreSQL at ${server}` }
})()

/** The run's second database, for the service's own processes, so they never race the contract suites. */
export const postgresForProcesses = (() => {
  const { server, url } = inject("postgresForProcesses")
  return { url, available: url !== null, label: url === null ? `skipped: no PostgreSQL at ${server}` : `PostgreSQL at ${server}` }
})()

export const redis = (() => {
  const { prefix, server, url } = inject("redis")
  return { url, prefix, available: url !== null, label: url === null ? `skipped: no Redis at ${server}` : `Redis at ${server}` }
})()
