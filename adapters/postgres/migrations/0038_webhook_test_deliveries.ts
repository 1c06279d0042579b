import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * A test message sent from `POST /webhooks/{id}/test` is kept in the endpoint's delivery log as a
 * delivery marked `test`, with the body it sent (test messages have no event in the outbox). Test
 * deliveries are never pending, so the claimer's partial index never holds them.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
  ALTER TABLE webhook_deliveries ADD COLUMN test boolean NOT NULL DEFAULT false;
  ALTER TABLE webhook_deliveries ADD COLUMN test_body text;
  ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_test_check
    CHECK (NOT test OR (status <> 'pending' AND test_body IS NOT NULL));
`)
