import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * Sign-ups through the API with double opt-in: a pending sign-up names no form then, but the API
 * key that asked for it, and carries the tags and metadata the subscriber is made with on
 * confirming. Those through the API are unique per organization and address while unconfirmed, as
 * those through a form are per form. A sign-up of an address already subscribed is kept as well
 * (`kind` = 'already_subscribed'): it holds when that address was last told so.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
  ALTER TABLE pending_sign_ups
    ALTER COLUMN form_id DROP NOT NULL,
    ADD COLUMN api_key_id uuid,
    ADD COLUMN kind       text   NOT NULL DEFAULT 'confirmation',
    ADD COLUMN tag_ids    uuid[] NOT NULL DEFAULT '{}',
    ADD COLUMN metadata   jsonb  NOT NULL DEFAULT '{}';
  CREATE UNIQUE INDEX pending_sign_ups_unconfirmed_api_idx ON pending_sign_ups (organization_id, lower(email))
    WHERE form_id IS NULL AND confirmed_at IS NULL;
`)
