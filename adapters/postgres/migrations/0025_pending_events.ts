import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * The events waiting for a dispatcher are rows of their own, `outbox_pending` (an event's position
 * and nothing else), rather than a `dispatched_at` set on the event: dispatching deletes that small
 * row instead of rewriting the event, its payload and every index entry of it (a change to an
 * indexed column is never a HOT update), so an event row is written once.
 *
 * Every writer of events (one statement, a multi-row insert, COPY) gets its pending rows from one
 * statement-level trigger, and an event deleted while it waits (its organization deleted) takes its
 * pending row with it. Events not yet dispatched wait in the new table.
 *
 * Events old enough to forget are found by a BRIN index on `occurred_at`: events are written in
 * time order, and such an index is a few pages that writes seldom touch.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
  CREATE TABLE outbox_pending (
    position bigint PRIMARY KEY
  );
  INSERT INTO outbox_pending (position) SELECT position FROM outbox_events WHERE dispatched_at IS NULL;

  CREATE FUNCTION outbox_events_wait() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO outbox_pending (position) SELECT position FROM recorded;
    RETURN NULL;
  END
  $$;
  CREATE TRIGGER outbox_events_wait AFTER INSERT ON outbox_events
    REFERENCING NEW TABLE AS recorded FOR EACH STATEMENT EXECUTE FUNCTION outbox_events_wait();

  CREATE FUNCTION outbox_events_forget() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    DELETE FROM outbox_pending WHERE position IN (SELECT position FROM forgotten);
    RETURN NULL;
  END
  $$;
  CREATE TRIGGER outbox_events_forget AFTER DELETE ON outbox_events
    REFERENCING OLD TABLE AS forgotten FOR EACH STATEMENT EXECUTE FUNCTION outbox_events_forget();

  DROP INDEX outbox_events_pending_idx;
  DROP INDEX outbox_events_dispatched_idx;
  ALTER TABLE outbox_events DROP COLUMN dispatched_at;
  CREATE INDEX outbox_events_occurred_at_brin ON outbox_events USING brin (occurred_at);
`)
