import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * A single send's or a sequence's email began its history with an event row for its creation
 * (`queued`, or the status it was held in), written beside the message in the same statement:
 * a heap row, three index entries and a foreign-key check a message, for a fact the message row
 * holds already. The message now keeps the status it was made in (`created_as`), and its history
 * begins with that status at `created_at`, its detail the message's error when it was held (a held
 * message keeps its status and error). A campaign's email has no such event and keeps none
 * (`created_as` null), as before. The rows of those events go, their status kept on the message.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
  ALTER TABLE messages ADD COLUMN created_as text;
  WITH creation AS (
    DELETE FROM message_events e USING messages m
    WHERE e.message_id = m.id AND m.campaign_id IS NULL AND e.occurred_at = m.created_at
      AND e.type IN ('queued', 'suppressed', 'sandboxed') AND e.provider_event_key IS NULL
    RETURNING e.message_id, e.type
  )
  UPDATE messages m SET created_as = creation.type FROM creation WHERE m.id = creation.message_id;
`)
