import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * A sending campaign's audience as it was when sending started, written by the statement that
 * starts it: its subscribers' ids in order, a thousand to a row (`last_id` the row's last), from
 * which the worker makes messages a chunk at a time, so that tags given or taken meanwhile change
 * nothing. The rows go once the audience is taken whole, or when the campaign is cancelled.
 *
 * The audiences still being taken when this runs are written out here from where they were (the
 * subscribers after `cursor` created by `fixed_at`, by the condition their campaign had then).
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
  CREATE TABLE campaign_audience_parts (
    campaign_id    uuid   NOT NULL REFERENCES campaign_audiences (campaign_id) ON DELETE CASCADE,
    last_id        uuid   NOT NULL,
    subscriber_ids uuid[] NOT NULL,
    PRIMARY KEY (campaign_id, last_id)
  );
  INSERT INTO campaign_audience_parts (campaign_id, last_id, subscriber_ids)
  SELECT campaign_id, ids[cardinality(ids)], ids FROM (
    SELECT campaign_id, array_agg(id ORDER BY id) AS ids FROM (
      SELECT a.campaign_id, s.id, (row_number() OVER (PARTITION BY a.campaign_id ORDER BY s.id) - 1) / 1000 AS part
      FROM campaign_audiences a
      JOIN campaigns c ON c.id = a.campaign_id
      JOIN subscribers s ON s.organization_id = c.organization_id
      WHERE NOT a.complete AND c.status IN ('sending', 'failed')
        AND s.created_at <= a.fixed_at AND (a.cursor IS NULL OR s.id > a.cursor)
        AND s.erasure_requested_at IS NULL
        AND (s.status = 'active' OR (c.kind = 'transactional' AND s.status = 'unsubscribed'))
        AND (cardinality(c.tag_ids) = 0 OR EXISTS (
          SELECT 1 FROM subscriber_tags st WHERE st.subscriber_id = s.id AND st.tag_id = ANY(c.tag_ids)
        ))
        AND NOT EXISTS (SELECT 1 FROM subscriber_tags x WHERE x.subscriber_id = s.id AND x.tag_id = ANY(c.exclude_tag_ids))
    ) members
    GROUP BY campaign_id, part
  ) parts;
`)
