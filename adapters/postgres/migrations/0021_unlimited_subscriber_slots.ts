import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * Organizations counted without a limit get the 128 slot rows such counts are now spread over
 * (subscriber-slots.ts); the new rows count nothing, so every organization's count stays as it was.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
  INSERT INTO organization_subscriber_slots (organization_id, shard, used, allowance, quota)
  SELECT o.organization_id, s.shard, 0, NULL, NULL
  FROM (SELECT DISTINCT organization_id FROM organization_subscriber_slots WHERE quota IS NULL) AS o
    CROSS JOIN generate_series(0, 127) AS s(shard)
  ON CONFLICT (organization_id, shard) DO NOTHING;
`)
