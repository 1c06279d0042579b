import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * Dashboard users, their memberships in organizations, sign-in links and sessions.
 *
 * As in the first migration: timestamps come from the application, keys compared in code-point
 * order use the "C" collation, and constraints are named. A user's memberships and sessions go
 * with the user, and memberships with their organization. Sign-in links name an address, not a
 * user: the user is made when the first link is used.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
  CREATE TABLE users (
    id                uuid        PRIMARY KEY,
    email             text        NOT NULL,
    email_key         text        COLLATE "C" NOT NULL,
    created_at        timestamptz NOT NULL,
    last_signed_in_at timestamptz,
    CONSTRAINT users_email_unique UNIQUE (email_key)
  );

  CREATE TABLE memberships (
    organization_id uuid        NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    user_id         uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role            text        NOT NULL,
    created_at      timestamptz NOT NULL,
    PRIMARY KEY (organization_id, user_id),
    CONSTRAINT memberships_role_check CHECK (role IN ('owner', 'member'))
  );
  CREATE INDEX memberships_user_idx ON memberships (user_id);

  -- Only the SHA-256 of a link's token is kept.
  CREATE TABLE magic_links (
    token_hash  text        PRIMARY KEY,
    email       text        NOT NULL,
    locale      text        NOT NULL,
    created_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL,
    consumed_at timestamptz,
    CONSTRAINT magic_links_locale_check CHECK (locale IN ('en', 'de'))
  );
  -- For removing links that have run out.
  CREATE INDEX magic_links_expires_at_idx ON magic_links (expires_at);

  -- The id is the session token's jti.
  CREATE TABLE sessions (
    id         uuid        PRIMARY KEY,
    user_id    uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    revoked_at timestamptz
  );
  CREATE INDEX sessions_user_idx ON sessions (user_id);
`)
