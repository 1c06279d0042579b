import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * Ended imports that still keep problem rows, by when they ended: the worker drops the rows (they
 * name addresses) once they are old enough, reading only these imports.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
  CREATE INDEX import_jobs_problems_kept_idx ON import_jobs (finished_at)
    WHERE finished_at IS NOT NULL AND problems <> '[]'::jsonb;
`)
