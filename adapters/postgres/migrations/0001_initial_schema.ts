import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * Organizations, subscribers, tags and their assignments, API keys and the outbox.
 *
 * Every timestamp comes from the application, to the millisecond; no column defaults to now().
 * Keys compared in code-point order (`email_key`, `name_key`) use the "C" collation, whatever the
 * database's default. Constraints are named: unique violations are told apart by name.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
  CREATE TABLE organizations (
    id                uuid        PRIMARY KEY,
    name              text        NOT NULL,
    slug              text        NOT NULL,
    tier              text        NOT NULL,
    is_platform_admin boolean     NOT NULL DEFAULT false,
    suspended_at      timestamptz,
    subscriber_count  integer     NOT NULL DEFAULT 0,
    created_at        timestamptz NOT NULL,
    updated_at        timestamptz NOT NULL,
    CONSTRAINT organizations_slug_unique UNIQUE (slug),
    CONSTRAINT organizations_tier_check CHECK (tier IN ('free', 'pro', 'enterprise')),
    CONSTRAINT organizations_subscriber_count_check CHECK (subscriber_count >= 0)
  );

  CREATE TABLE subscribers (
    id              uuid        PRIMARY KEY,
    organization_id uuid        NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    email           text        NOT NULL,
    email_key       text        COLLATE "C" NOT NULL,
    status          text        NOT NULL,
    metadata        jsonb       NOT NULL DEFAULT '{}',
    first_name      text,
    last_name       text,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    CONSTRAINT subscribers_email_unique UNIQUE (organization_id, email_key),
    CONSTRAINT subscribers_status_check CHECK (status IN ('active', 'unsubscribed', 'bounced', 'complained'))
  );
  CREATE INDEX subscribers_created_at_idx ON subscribers (organization_id, created_at, id);
  CREATE INDEX subscribers_updated_at_idx ON subscribers (organization_id, updated_at, id);
  CREATE INDEX subscribers_status_created_at_idx ON subscribers (organization_id, status, created_at, id);

  CREATE TABLE tags (
    id               uuid        PRIMARY KEY,
    organization_id  uuid        NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name             text        NOT NULL,
    name_key         text        COLLATE "C" NOT NULL,
    slug             text        NOT NULL,
    description      text,
    metadata         jsonb       NOT NULL DEFAULT '{}',
    subscriber_count integer     NOT NULL DEFAULT 0,
    created_at       timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL,
    -- Declared name first: a tag that clashes on both is reported as a name clash.
    CONSTRAINT tags_name_unique UNIQUE (organization_id, name_key),
    CONSTRAINT tags_slug_unique UNIQUE (organization_id, slug),
    CONSTRAINT tags_subscriber_count_check CHECK (subscriber_count >= 0)
  );
  CREATE INDEX tags_created_at_idx ON tags (organization_id, created_at, id);
  CREATE INDEX tags_subscriber_count_idx ON tags (organization_id, subscriber_count, id);

  CREATE TABLE subscriber_tags (
    subscriber_id uuid        NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
    tag_id        uuid        NOT NULL REFERENCES tags (id) ON DELETE CASCADE,
    subscribed_at timestamptz NOT NULL,
    PRIMARY KEY (subscriber_id, tag_id)
  );
  CREATE INDEX subscriber_tags_tag_idx ON subscriber_tags (tag_id, subscriber_id);

  CREATE TABLE api_keys (
    id              uuid        PRIMARY KEY,
    organization_id uuid        NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name            text        NOT NULL,
    environment     text        NOT NULL,
    key_hash        text        NOT NULL,
    prefix          text        NOT NULL,
    last_four       text        NOT NULL,
    scopes          jsonb       NOT NULL,
    created_at      timestamptz NOT NULL,
    last_used_at    timestamptz,
    revoked_at      timestamptz,
    CONSTRAINT api_keys_key_hash_unique UNIQUE (key_hash),
    CONSTRAINT api_keys_environment_check CHECK (environment IN ('live', 'test'))
  );
  CREATE INDEX api_keys_organization_idx ON api_keys (organization_id, created_at, id);

  -- No foreign key to organizations: events outlive what they describe.
  CREATE TABLE outbox_events (
    id              uuid        PRIMARY KEY,
    position        bigserial   NOT NULL,
    organization_id uuid        NOT NULL,
    type            text        NOT NULL,
    occurred_at     timestamptz NOT NULL,
    data            jsonb       NOT NULL,
    dispatched_at   timestamptz,
    CONSTRAINT outbox_events_position_unique UNIQUE (position)
  );
  CREATE INDEX outbox_events_pending_idx ON outbox_events (position) WHERE dispatched_at IS NULL;
  CREATE INDEX outbox_events_organization_idx ON outbox_events (organization_id, position);
`)
