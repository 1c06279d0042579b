import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * A campaign's queued emails in subscriber order, the order its audience is taken in and its
 * batches are leased in: a lease reads the index from where the last one ended, and the emails
 * settled before it stay behind.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
  DROP INDEX messages_campaign_queued_idx;
  CREATE INDEX messages_campaign_queued_idx ON messages (campaign_id, subscriber_id) WHERE status = 'queued';
`)
