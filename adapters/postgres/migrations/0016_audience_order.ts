import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * An organization's subscribers who may be in an audience (no erasure asked for), in id order,
 * with their status: counting or taking an audience by one tag reads these beside that tag's
 * assignments (`subscriber_tags_tag_idx`, also in subscriber order) and merges the two, from the
 * indexes alone, instead of hashing a million rows.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
  CREATE INDEX subscribers_audience_idx ON subscribers (organization_id, id) INCLUDE (status)
    WHERE erasure_requested_at IS NULL;
`)
