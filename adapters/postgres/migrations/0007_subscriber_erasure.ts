import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * Erasures a subscriber asked for and the worker has not carried out yet; the partial index keeps
 * finding them cheap however many subscribers there are.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
  ALTER TABLE subscribers ADD COLUMN erasure_requested_at timestamptz;
  CREATE INDEX subscribers_erasure_requested_idx ON subscribers (erasure_requested_at) WHERE erasure_requested_at IS NOT NULL;
`)
