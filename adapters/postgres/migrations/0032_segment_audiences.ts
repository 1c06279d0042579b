import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * Segments as a campaign's audience and as a trigger's condition. Neither column references
 * `segments`: a sent campaign keeps naming the segment its audience was fixed from after the
 * segment is deleted, and the use cases refuse to delete a segment that a campaign not started yet
 * or a trigger still reads (a foreign key could tell those apart only by the campaign's state).
 * Who uses a segment is looked up within an organization, whose campaigns and triggers are few.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
  ALTER TABLE campaigns ADD COLUMN segment_id uuid;
  ALTER TABLE email_triggers ADD COLUMN segment_id uuid;
`)
