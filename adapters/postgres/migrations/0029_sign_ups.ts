import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * Sign-ups through forms that wait for their confirmation, and the consents of subscribers. A
 * form has at most one unconfirmed sign-up per address (in any letter case); sign-ups go with
 * their form. A consent stays when its form is deleted (it names none from then on) and goes with
 * its subscriber.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
  CREATE TABLE pending_sign_ups (
    id               uuid        PRIMARY KEY,
    organization_id  uuid        NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    form_id          uuid        NOT NULL REFERENCES forms (id) ON DELETE CASCADE,
    email            text        NOT NULL,
    first_name       text,
    last_name        text,
    locale           text        NOT NULL,
    token_id         text        NOT NULL,
    consent_text     text,
    client_address   text,
    user_agent       text,
    created_at       timestamptz NOT NULL,
    expires_at       timestamptz NOT NULL,
    mail_due_at      timestamptz,
    last_mail_at     timestamptz,
    confirmed_at     timestamptz
  );
  CREATE UNIQUE INDEX pending_sign_ups_unconfirmed_idx ON pending_sign_ups (form_id, lower(email)) WHERE confirmed_at IS NULL;
  CREATE INDEX pending_sign_ups_mail_due_idx ON pending_sign_ups (mail_due_at, id) WHERE mail_due_at IS NOT NULL;
  CREATE INDEX pending_sign_ups_expiry_idx ON pending_sign_ups (expires_at);

  CREATE TABLE subscriber_consents (
    id               uuid        PRIMARY KEY,
    organization_id  uuid        NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    subscriber_id    uuid        NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
    form_id          uuid        REFERENCES forms (id) ON DELETE SET NULL,
    api_key_id       uuid,
    text             text,
    client_address   text,
    user_agent       text,
    agreed_at        timestamptz NOT NULL,
    confirmed_at     timestamptz
  );
  CREATE INDEX subscriber_consents_subscriber_idx ON subscriber_consents (subscriber_id, agreed_at, id);
`)
