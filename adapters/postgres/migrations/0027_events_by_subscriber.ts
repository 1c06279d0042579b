import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * A subscriber's events are found by the subscriber they are about (`data.subscriber.id`), newest
 * or oldest first, without reading the rest of the organization's: their history page, their data
 * export and their erasure read a handful of rows among an organization's millions. The key is the
 * text of the id, as events carry it (an event's data is not checked to hold a UUID there), and the
 * position, so that a page in recorded order is read straight off the index.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
  CREATE INDEX outbox_events_subscriber_idx ON outbox_events ((data -> 'subscriber' ->> 'id'), position);
`)
