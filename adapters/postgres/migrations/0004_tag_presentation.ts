import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * How a tag is presented: an optional display name and an optional category. Categories compare
 * in code-point order (the "C" collation), as the application sorts them; tags are listed by
 * category and filtered on it within an organization, hence the index.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
  ALTER TABLE tags
    ADD COLUMN display_name text,
    ADD COLUMN category     text COLLATE "C";
  CREATE INDEX tags_category_idx ON tags (organization_id, category, id);
`)
