import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * `messages_campaign_queued_idx` finds a campaign's queued emails. It held every queued email,
 * single sends and sequence emails too (with a null campaign), so storing and leasing each of
 * those wrote an entry no reader looks up. It now holds campaign emails only; the statements that
 * use it name a campaign (`campaign_id = ...`), which the planner knows is not null.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
  DROP INDEX messages_campaign_queued_idx;
  CREATE INDEX messages_campaign_queued_idx ON messages (campaign_id, subscriber_id)
    WHERE status = 'queued' AND campaign_id IS NOT NULL;
`)
