import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * A subscriber's tag assignments are read with the time of each from the primary key alone: an
 * export names the tags of every subscriber in attachment order, and reads them without a visit to
 * the table for each (an index-only scan, for a million subscribers in a row).
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
  CREATE UNIQUE INDEX subscriber_tags_pkey_with_time ON subscriber_tags (subscriber_id, tag_id) INCLUDE (subscribed_at);
  ALTER TABLE subscriber_tags
    DROP CONSTRAINT subscriber_tags_pkey,
    ADD CONSTRAINT subscriber_tags_pkey PRIMARY KEY USING INDEX subscriber_tags_pkey_with_time;
`)
