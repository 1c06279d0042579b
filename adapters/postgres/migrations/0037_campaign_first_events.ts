import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * A campaign's figures without reading its events. For each email of a campaign, the first time it
 * had each kind of event its chart counts (delivered, opened, clicked, bounced, complained): the
 * outgoing mail queue keeps it in the statement that records the provider's report, a row the first
 * time and a change only for an earlier report, and the index by campaign, kind and time makes the
 * chart one walk of the campaign's part of it. The campaign's emails are counted by status from
 * the recipient index, which now carries the status (an index-only scan, and no index more to
 * write: every change of status already writes all of them).
 *
 * The first times of the emails sent before are taken from their events; the keys and the link to
 * the message are made after, one pass each, rather than checked row by row.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
  CREATE TABLE message_first_events (
    message_id  uuid        NOT NULL,
    type        text        NOT NULL,
    campaign_id uuid        NOT NULL,
    occurred_at timestamptz NOT NULL
  );

  INSERT INTO message_first_events (message_id, type, campaign_id, occurred_at)
  SELECT e.message_id, e.type, m.campaign_id, min(e.occurred_at)
  FROM messages m JOIN message_events e ON e.message_id = m.id
  WHERE m.campaign_id IS NOT NULL AND e.type IN ('delivered', 'opened', 'clicked', 'bounced', 'complained')
  GROUP BY e.message_id, e.type, m.campaign_id;

  ALTER TABLE message_first_events
    ADD PRIMARY KEY (message_id, type),
    ADD FOREIGN KEY (message_id) REFERENCES messages (id) ON DELETE CASCADE;
  CREATE INDEX message_first_events_campaign_idx ON message_first_events (campaign_id, type, occurred_at);

  DROP INDEX messages_campaign_recipient_unique;
  CREATE UNIQUE INDEX messages_campaign_recipient_unique ON messages (campaign_id, subscriber_id) INCLUDE (status)
    WHERE campaign_id IS NOT NULL;
`)
