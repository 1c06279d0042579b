import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { PgClient } from "@effect/sql-pg"
import type { Layer, Redacted } from "effect"

/**
 * A PostgreSQL server through a pool of node-postgres connections. Values come back as from the
 * embedded database: timestamptz as Date, int8 as a string, jsonb parsed, integers as numbers.
 * Fails at start when the server does not answer.
 */
export const makePgClient = (
  url: Redacted.Redacted<string>
): Layer.Layer<SqlClient.SqlClient | PgClient.PgClient, SqlError> =>
  PgClient.layer({
    url,
    maxConnections: 10,
    idleTimeout: "30 seconds",
    // Also how long a statement waits for a free connection: past it, it fails rather than queues.
    connectTimeout: "5 seconds",
    applicationName: "roster"
  })
