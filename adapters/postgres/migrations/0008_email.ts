import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * Sending email: an organization's templates and sender settings, notes on subscribers, each
 * email's message row with its history, and the count of emails each organization sent per month.
 *
 * A message is one email to one subscriber, rendered when it is accepted, so the worker sends
 * exactly what the API answered. Workers lease queued messages into batches, oldest due first: a
 * batch's `lease_token` is its idempotency key at the provider (a batch of one uses the message's
 * id), and a batch stays whole under its key until it is settled, so a batch a killed worker (or a
 * timed-out attempt) may have handed over goes again with the same key and content. While leased,
 * `next_attempt_at` is when the lease runs out or the next attempt is due. A message goes with its
 * subscriber: erasing a subscriber erases what was sent to them.
 *
 * Provider events are recorded once: `message_events.provider_event_key` is the event's own id
 * (or a digest of its body) and unique. `email_usage` counts the emails each organization handed
 * to the provider per calendar month (UTC), raised by one conditional statement per acceptance.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
  CREATE TABLE email_templates (
    id              uuid        PRIMARY KEY,
    organization_id uuid        NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name            text        NOT NULL,
    subject         text        NOT NULL,
    html            text,
    text            text,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    CONSTRAINT email_templates_body_check CHECK (html IS NOT NULL OR text IS NOT NULL)
  );
  CREATE INDEX email_templates_organization_idx ON email_templates (organization_id, created_at, id);

  CREATE TABLE email_settings (
    organization_id uuid        PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
    from_name       text,
    from_address    text,
    updated_at      timestamptz NOT NULL
  );

  CREATE TABLE subscriber_notes (
    id              uuid        PRIMARY KEY,
    organization_id uuid        NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    subscriber_id   uuid        NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
    body            text        NOT NULL,
    author_kind     text        NOT NULL,
    author_id       uuid,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    CONSTRAINT subscriber_notes_author_kind_check CHECK (author_kind IN ('user', 'api_key'))
  );
  CREATE INDEX subscriber_notes_subscriber_idx ON subscriber_notes (subscriber_id, created_at, id);

  CREATE TABLE messages (
    id              uuid        PRIMARY KEY,
    organization_id uuid        NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    subscriber_id   uuid        NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
    template_id     uuid        REFERENCES email_templates (id) ON DELETE SET NULL,
    kind            text        NOT NULL,
    to_address      text        NOT NULL,
    from_header     text        NOT NULL,
    subject         text        NOT NULL,
    html            text,
    text            text,
    headers         jsonb       NOT NULL DEFAULT '{}',
    status          text        NOT NULL,
    provider_id     text,
    error           text,
    attempt_count   integer     NOT NULL DEFAULT 0,
    next_attempt_at timestamptz,
    lease_token     uuid,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    CONSTRAINT messages_kind_check CHECK (kind IN ('transactional', 'marketing')),
    CONSTRAINT messages_status_check CHECK (status IN (
      'queued', 'sent', 'delivered', 'opened', 'clicked', 'bounced', 'complained', 'failed', 'suppressed', 'sandboxed'
    )),
    CONSTRAINT messages_attempt_count_check CHECK (attempt_count >= 0)
  );
  -- The claimer's walks: batches due again (a lease ran out, or a retry came due), then queued
  -- messages in no batch yet, oldest due first; and a batch's messages by its key.
  CREATE INDEX messages_due_batches_idx ON messages (next_attempt_at, id)
    WHERE status = 'queued' AND lease_token IS NOT NULL;
  CREATE INDEX messages_due_idx ON messages (next_attempt_at, id) WHERE status = 'queued' AND lease_token IS NULL;
  CREATE INDEX messages_lease_idx ON messages (lease_token) WHERE lease_token IS NOT NULL;
  -- An organization's messages newest first, all or of one status or subscriber.
  CREATE INDEX messages_organization_idx ON messages (organization_id, id);
  CREATE INDEX messages_status_idx ON messages (organization_id, status, id);
  CREATE INDEX messages_subscriber_idx ON messages (subscriber_id, id);
  -- Provider events find their message by the provider's id, else by the recipient.
  CREATE UNIQUE INDEX messages_provider_id_unique ON messages (provider_id) WHERE provider_id IS NOT NULL;
  CREATE INDEX messages_recipient_idx ON messages (lower(to_address), id);

  CREATE TABLE message_events (
    id                 uuid        PRIMARY KEY,
    message_id         uuid        NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    organization_id    uuid        NOT NULL,
    type               text        NOT NULL,
    occurred_at        timestamptz NOT NULL,
    detail             text,
    provider_event_key text
  );
  CREATE INDEX message_events_message_idx ON message_events (message_id, occurred_at, id);
  CREATE UNIQUE INDEX message_events_provider_key_unique ON message_events (provider_event_key)
    WHERE provider_event_key IS NOT NULL;

  CREATE TABLE email_usage (
    organization_id uuid    NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    month           text    NOT NULL,
    sent            integer NOT NULL,
    PRIMARY KEY (organization_id, month),
    CONSTRAINT email_usage_sent_check CHECK (sent >= 0)
  );
`)
