import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * Outgoing webhooks: an organization's endpoints, one delivery per event and endpoint, and each
 * delivery's attempts.
 *
 * As in the first migration: timestamps come from the application, constraints are named. An
 * endpoint goes with its organization, a delivery with its endpoint, an attempt with its delivery,
 * so deleting an organization or an endpoint takes everything below it. A delivery names its event
 * in the outbox by id, without a foreign key, as events carry none either.
 *
 * Delivery ids are UUIDv7: their order is the order they were made in, which the newest-first list
 * of an endpoint's deliveries walks (`webhook_deliveries_endpoint_idx`). Workers lease pending
 * deliveries oldest due first (`webhook_deliveries_due_idx`); a leased delivery carries its
 * worker's `lease_token` until the attempt is recorded or the delivery given back. Attempts repeat
 * their delivery's endpoint and organization, so that stats over a span read one index.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
  CREATE TABLE webhook_endpoints (
    id                                 uuid        PRIMARY KEY,
    organization_id                    uuid        NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    url                                text        NOT NULL,
    events                             text[]      NOT NULL,
    description                        text,
    status                             text        NOT NULL,
    disabled_reason                    text,
    signing_secret                     text        NOT NULL,
    previous_signing_secret            text,
    previous_signing_secret_expires_at timestamptz,
    failing_since                      timestamptz,
    created_at                         timestamptz NOT NULL,
    updated_at                         timestamptz NOT NULL,
    CONSTRAINT webhook_endpoints_status_check CHECK (status IN ('active', 'disabled')),
    CONSTRAINT webhook_endpoints_disabled_reason_check CHECK (disabled_reason IN ('by_user', 'gone', 'failing'))
  );
  CREATE INDEX webhook_endpoints_organization_idx ON webhook_endpoints (organization_id, created_at, id);

  CREATE TABLE webhook_deliveries (
    id              uuid        PRIMARY KEY,
    organization_id uuid        NOT NULL,
    endpoint_id     uuid        NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    event_id        uuid        NOT NULL,
    event_type      text        NOT NULL,
    status          text        NOT NULL,
    attempt_count   integer     NOT NULL,
    next_attempt_at timestamptz,
    lease_token     uuid,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    CONSTRAINT webhook_deliveries_event_unique UNIQUE (endpoint_id, event_id),
    CONSTRAINT webhook_deliveries_status_check CHECK (status IN ('pending', 'succeeded', 'failed')),
    CONSTRAINT webhook_deliveries_attempt_count_check CHECK (attempt_count >= 0)
  );
  -- The claimer's walk: pending deliveries, oldest due first (the id breaks ties).
  CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at, id) WHERE status = 'pending';
  -- An endpoint's deliveries, newest first.
  CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, id);
  -- How many of an endpoint's deliveries wait, without reading its whole history.
  CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (endpoint_id) WHERE status = 'pending';
  -- Retention: finished deliveries by age, and whether any delivery still refers to an event.
  CREATE INDEX webhook_deliveries_finished_idx ON webhook_deliveries (updated_at) WHERE status <> 'pending';
  CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_id);
  CREATE INDEX outbox_events_dispatched_idx ON outbox_events (dispatched_at) WHERE dispatched_at IS NOT NULL;

  CREATE TABLE webhook_attempts (
    delivery_id     uuid        NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    number          integer     NOT NULL,
    endpoint_id     uuid        NOT NULL,
    organization_id uuid        NOT NULL,
    attempted_at    timestamptz NOT NULL,
    status          text        NOT NULL,
    response_status integer,
    duration_ms     integer     NOT NULL,
    error           text,
    next_attempt_at timestamptz,
    PRIMARY KEY (delivery_id, number),
    CONSTRAINT webhook_attempts_status_check CHECK (status IN ('succeeded', 'failed')),
    CONSTRAINT webhook_attempts_number_check CHECK (number >= 1),
    CONSTRAINT webhook_attempts_duration_check CHECK (duration_ms >= 0)
  );
  CREATE INDEX webhook_attempts_endpoint_idx ON webhook_attempts (endpoint_id, attempted_at);
  CREATE INDEX webhook_attempts_organization_idx ON webhook_attempts (organization_id, attempted_at);
`)
