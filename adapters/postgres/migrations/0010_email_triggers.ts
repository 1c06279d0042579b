import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * Email triggers, and their firings. Firings are made from the outbox in the same transaction that
 * makes webhook deliveries of the event, so a trigger fires for every committed change and for no
 * other; `(trigger_id, subscriber_id)` is unique, so a trigger sends a subscriber at most one email
 * however often its event comes. A firing waits until `due_at`, then a worker claims it and queues
 * the email (`message_id`), or records why it did not (`detail`).
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
  CREATE TABLE email_triggers (
    id              uuid        PRIMARY KEY,
    organization_id uuid        NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name            text        NOT NULL,
    event           text        NOT NULL,
    tag_id          uuid        REFERENCES tags (id) ON DELETE CASCADE,
    template_id     uuid        REFERENCES email_templates (id) ON DELETE SET NULL,
    kind            text        NOT NULL,
    delay_seconds   integer     NOT NULL,
    status          text        NOT NULL,
    data            jsonb       NOT NULL DEFAULT '{}',
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    CONSTRAINT email_triggers_event_check CHECK (event IN ('subscriber.created', 'tag.subscribed')),
    CONSTRAINT email_triggers_status_check CHECK (status IN ('active', 'paused')),
    CONSTRAINT email_triggers_kind_check CHECK (kind IN ('transactional', 'marketing')),
    CONSTRAINT email_triggers_delay_check CHECK (delay_seconds BETWEEN 0 AND 2592000)
  );
  CREATE INDEX email_triggers_organization_idx ON email_triggers (organization_id, created_at, id);
  CREATE INDEX email_triggers_listening_idx ON email_triggers (organization_id, event) WHERE status = 'active';

  CREATE TABLE trigger_firings (
    id              uuid        PRIMARY KEY,
    trigger_id      uuid        NOT NULL REFERENCES email_triggers (id) ON DELETE CASCADE,
    organization_id uuid        NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    subscriber_id   uuid        NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
    event_id        uuid        NOT NULL,
    status          text        NOT NULL,
    due_at          timestamptz NOT NULL,
    message_id      uuid        REFERENCES messages (id) ON DELETE SET NULL,
    detail          text,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    CONSTRAINT trigger_firings_once UNIQUE (trigger_id, subscriber_id),
    CONSTRAINT trigger_firings_status_check CHECK (status IN ('pending', 'sent', 'skipped', 'failed'))
  );
  CREATE INDEX trigger_firings_due_idx ON trigger_firings (due_at, id) WHERE status = 'pending';
`)
