import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * Sequences, the versions of their steps, the enrollments of subscribers in them, and one row
 * for every step an enrollment ran or ended in. A worker takes due enrollments under a row lock
 * (`FOR UPDATE SKIP LOCKED`) inside the transaction that runs their steps: the step's effect
 * (an email queued, a tag changed), its row here and the move to the next step commit together.
 * At most one enrollment of a sequence and subscriber is active at a time; `(enrollment_id,
 * ordinal)` makes a step run twice from the same place impossible.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
  CREATE TABLE sequences (
    id              uuid        PRIMARY KEY,
    organization_id uuid        NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name            text        NOT NULL,
    status          text        NOT NULL,
    version         integer     NOT NULL,
    entry           jsonb       NOT NULL,
    entry_event     text        NOT NULL,
    steps           jsonb       NOT NULL,
    goal_tag_id     uuid,
    re_entry        text        NOT NULL,
    time_zone       text        NOT NULL,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    CONSTRAINT sequences_status_check CHECK (status IN ('draft', 'active', 'paused')),
    CONSTRAINT sequences_re_entry_check CHECK (re_entry IN ('once', 'each_time'))
  );
  CREATE INDEX sequences_organization_idx ON sequences (organization_id, created_at, id);
  CREATE INDEX sequences_listening_idx ON sequences (organization_id) WHERE status = 'active' AND entry_event <> 'api';

  CREATE TABLE sequence_versions (
    sequence_id uuid        NOT NULL REFERENCES sequences (id) ON DELETE CASCADE,
    version     integer     NOT NULL,
    steps       jsonb       NOT NULL,
    created_at  timestamptz NOT NULL,
    PRIMARY KEY (sequence_id, version)
  );

  CREATE TABLE sequence_enrollments (
    id              uuid        PRIMARY KEY,
    organization_id uuid        NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    sequence_id     uuid        NOT NULL REFERENCES sequences (id) ON DELETE CASCADE,
    version         integer     NOT NULL,
    subscriber_id   uuid        NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
    state           text        NOT NULL,
    step_index      integer     NOT NULL,
    step_name       text        NOT NULL,
    waiting         boolean     NOT NULL,
    next_run_at     timestamptz,
    last_message_id uuid,
    exit_reason     text,
    steps_run       integer     NOT NULL DEFAULT 0,
    sandboxed       boolean     NOT NULL DEFAULT false,
    entered_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    CONSTRAINT sequence_enrollments_state_check CHECK (state IN ('active', 'completed', 'exited')),
    FOREIGN KEY (sequence_id, version) REFERENCES sequence_versions (sequence_id, version) ON DELETE CASCADE
  );
  CREATE UNIQUE INDEX sequence_enrollments_one_active ON sequence_enrollments (sequence_id, subscriber_id) WHERE state = 'active';
  CREATE INDEX sequence_enrollments_subscriber_idx ON sequence_enrollments (sequence_id, subscriber_id);
  CREATE INDEX sequence_enrollments_list_idx ON sequence_enrollments (sequence_id, entered_at, id);
  CREATE INDEX sequence_enrollments_due_idx ON sequence_enrollments (next_run_at, id) WHERE state = 'active';

  CREATE TABLE sequence_step_runs (
    enrollment_id uuid        NOT NULL REFERENCES sequence_enrollments (id) ON DELETE CASCADE,
    ordinal       integer     NOT NULL,
    sequence_id   uuid        NOT NULL REFERENCES sequences (id) ON DELETE CASCADE,
    step_name     text        NOT NULL,
    outcome       text        NOT NULL,
    message_id    uuid,
    at            timestamptz NOT NULL,
    PRIMARY KEY (enrollment_id, ordinal),
    CONSTRAINT sequence_step_runs_outcome_check CHECK (outcome IN ('completed', 'exited'))
  );
  CREATE INDEX sequence_step_runs_sequence_idx ON sequence_step_runs (sequence_id, step_name);
`)
