import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * Each webhook attempt keeps the start of the answer's body (at most 1,000 characters), which the
 * dashboard's delivery log shows, escaped, beside the status. Attempts made before keep none.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
  ALTER TABLE webhook_attempts ADD COLUMN response_excerpt text;
`)
