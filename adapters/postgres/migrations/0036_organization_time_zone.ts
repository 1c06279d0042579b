import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * Each organization's own time zone (an IANA name): what a sequence made without one waits in.
 * Organizations made before are on UTC, as their sequences were.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
  ALTER TABLE organizations ADD COLUMN time_zone text NOT NULL DEFAULT 'UTC';
`)
