import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * The worker holding a running import: `lease_token` is set when a worker claims the import and
 * checked by every write of its run, so that a worker slower than its lease cannot change an
 * import another worker took over.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
  ALTER TABLE import_jobs ADD COLUMN lease_token uuid;
`)
