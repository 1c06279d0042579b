import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"
import type { DirectDeletion } from "../contract/index.js"

/** Deletes rows as an operator would in psql, so that the schema's cascades show. */
export const sqlDeletion: DirectDeletion<SqlClient.SqlClient> = {
  deleteUser: (id) =>
    Effect.flatMap(SqlClient.SqlClient, (sql) => sql`DELETE FROM users WHERE id = ${id}`).pipe(Effect.asVoid, Effect.orDie)
}
