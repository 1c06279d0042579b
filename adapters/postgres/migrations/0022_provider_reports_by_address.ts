import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * A report of the email provider about an address reaches every organization that holds it: the
 * subscribers are found by their email key alone (the unique key leads with the organization), and
 * each organization notes the reports it applied, so the same report twice changes nothing twice.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
  CREATE INDEX IF NOT EXISTS subscribers_email_key_idx ON subscribers (email_key);

  CREATE TABLE IF NOT EXISTS provider_reports (
    organization_id uuid        NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    report_key      text        NOT NULL,
    applied_at      timestamptz NOT NULL,
    PRIMARY KEY (organization_id, report_key)
  );
`)
