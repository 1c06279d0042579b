import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * The platform-admin area lists every organization and every user oldest first, a keyset page at
 * a time: each list walks an index on (created_at, id), the order and the position it compares.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
  CREATE INDEX organizations_created_at_idx ON organizations (created_at, id);
  CREATE INDEX users_created_at_idx ON users (created_at, id);
`)
