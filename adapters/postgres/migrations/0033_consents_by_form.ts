import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * Consents by the form they were given through: how many subscribers joined through each form is
 * counted for the dashboard's list of forms, and a deleted form's consents are found to name none.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
  CREATE INDEX subscriber_consents_form_idx ON subscriber_consents (form_id, subscriber_id) WHERE form_id IS NOT NULL;
`)
