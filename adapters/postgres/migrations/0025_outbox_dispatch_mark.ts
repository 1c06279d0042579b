import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * Dispatch moves one mark instead of rewriting every event. Each event carries the id of the
 * transaction that recorded it (`xid`), and events are dispatched in `(xid, position)` order up to
 * the oldest transaction still open anywhere: every event before that point has committed (or
 * never will), so nothing that commits later can land behind the mark.
 *
 * Events recorded before this change keep their place: those already dispatched sit at xid 1,
 * behind the mark, and those still waiting at xid 2, ahead of it and of every real transaction.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
  ALTER TABLE outbox_events ADD COLUMN xid xid8 NOT NULL DEFAULT '1';
  UPDATE outbox_events SET xid = '2' WHERE dispatched_at IS NULL;
  ALTER TABLE outbox_events ALTER COLUMN xid SET DEFAULT pg_current_xact_id();
  DROP INDEX outbox_events_pending_idx;
  DROP INDEX outbox_events_dispatched_idx;
  ALTER TABLE outbox_events DROP COLUMN dispatched_at;
  CREATE INDEX outbox_events_dispatch_order_idx ON outbox_events (xid, position);
  -- Pruning finds old events by when they occurred; events arrive in about that order, so a block
  -- range index finds them at almost no cost to each insert.
  CREATE INDEX outbox_events_occurred_idx ON outbox_events USING brin (occurred_at);

  -- One row: the last event dispatched, in dispatch order, and when.
  CREATE TABLE outbox_dispatch_mark (
    singleton     boolean     PRIMARY KEY DEFAULT true CHECK (singleton),
    xid           xid8        NOT NULL,
    position      bigint      NOT NULL,
    dispatched_at timestamptz
  );
  INSERT INTO outbox_dispatch_mark (xid, position) VALUES ('1', 9223372036854775807);
`)
