import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/** A top-tier organization's own requests per minute: `0` for none, null for its plan's. */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
  ALTER TABLE organizations ADD COLUMN custom_rate_limit integer CHECK (custom_rate_limit >= 0);
`)
