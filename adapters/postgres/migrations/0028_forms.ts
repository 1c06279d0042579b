import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * Sign-up forms. A form names its tags by id in an array: a tag deleted later is left out when the
 * form is read (and when a sign-up is confirmed), so no row has to change with it. The
 * confirmation template goes back to the default when its template is deleted.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
  CREATE TABLE forms (
    id                         uuid        PRIMARY KEY,
    organization_id            uuid        NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name                       text        NOT NULL,
    tag_ids                    uuid[]      NOT NULL DEFAULT '{}',
    double_opt_in              boolean     NOT NULL DEFAULT true,
    consent_text               text,
    success_url                text,
    confirmed_url              text,
    allowed_origins            text[]      NOT NULL DEFAULT '{}',
    confirmation_template_id   uuid        REFERENCES email_templates (id) ON DELETE SET NULL,
    created_at                 timestamptz NOT NULL,
    updated_at                 timestamptz NOT NULL
  );
  CREATE INDEX forms_organization_idx ON forms (organization_id, created_at, id);
`)
