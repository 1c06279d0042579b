import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * Who sees a tag: `public` (offered in the preference center, as every tag was until now) or
 * `private` (the API and the organization's people only). Adding a column with a constant default
 * rewrites no rows. The preference center reads an organization's public tags by name.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
  ALTER TABLE tags
    ADD COLUMN visibility text NOT NULL DEFAULT 'public'
      CONSTRAINT tags_visibility_check CHECK (visibility IN ('public', 'private'));
  CREATE INDEX tags_public_name_idx ON tags (organization_id, name_key, id) WHERE visibility = 'public';
`)
