import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * The version a subscriber's preference tokens are issued under: moving it to the next one
 * revokes every token issued before, at once.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
  ALTER TABLE subscribers ADD COLUMN preference_token_version integer NOT NULL DEFAULT 0;
`)
