import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * Imports uploaded on the dashboard wait, their file all there, until the person who uploaded it
 * starts them (or gives them up): drafts. A draft stays `receiving`, so no worker claims it and no
 * list shows it, and it is given up with uploads that broke off once it is an hour old. `draft`
 * marks it; `draft_of` is the person it waits for (none for an API key), and it goes with them.
 * A started draft is an import like any other: both are cleared.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
  ALTER TABLE import_jobs ADD COLUMN draft boolean NOT NULL DEFAULT false;
  ALTER TABLE import_jobs ADD COLUMN draft_of uuid REFERENCES users (id) ON DELETE CASCADE;
  ALTER TABLE import_jobs ADD CONSTRAINT import_jobs_draft_check CHECK (NOT draft OR status = 'receiving');
`)
