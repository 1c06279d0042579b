import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * Imports sent over HTTP. `import_jobs` holds each import's state and what it has done so far:
 * `counts` (rows, created, updated, unchanged, failed, kept_status), `records_done` (records of the
 * file, the header included, a worker that takes it over starts after), the first problems
 * (`problems`, a thousand at most, in file order) and how many there were (`problem_count`). A
 * running import is its worker's until `lease_until`; past it, another worker takes it over.
 *
 * `import_job_parts` keeps the uploaded file, a part of about 1 MiB a row, from the upload until
 * the import ends. Both go with their organization.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
  CREATE TABLE import_jobs (
    id              uuid        PRIMARY KEY,
    organization_id uuid        NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    status          text        NOT NULL,
    file_name       text,
    byte_size       integer     NOT NULL DEFAULT 0,
    options         jsonb       NOT NULL,
    counts          jsonb       NOT NULL,
    records_done    integer     NOT NULL DEFAULT 0,
    problems        jsonb       NOT NULL DEFAULT '[]',
    problem_count   integer     NOT NULL DEFAULT 0,
    ignored_columns jsonb       NOT NULL DEFAULT '[]',
    failure         jsonb,
    lease_until     timestamptz,
    created_at      timestamptz NOT NULL,
    started_at      timestamptz,
    finished_at     timestamptz,
    updated_at      timestamptz NOT NULL,
    CONSTRAINT import_jobs_status_check CHECK (status IN ('receiving', 'queued', 'running', 'completed', 'failed')),
    CONSTRAINT import_jobs_byte_size_check CHECK (byte_size >= 0)
  );
  -- Workers claim the oldest waiting import, or a running one whose lease ran out.
  CREATE INDEX import_jobs_claim_idx ON import_jobs (created_at, id) WHERE status IN ('queued', 'running');
  -- An organization's imports, newest first.
  CREATE INDEX import_jobs_list_idx ON import_jobs (organization_id, created_at DESC, id DESC);
  -- Uploads that broke off, found to be given up.
  CREATE INDEX import_jobs_receiving_idx ON import_jobs (updated_at) WHERE status = 'receiving';

  CREATE TABLE import_job_parts (
    job_id uuid    NOT NULL REFERENCES import_jobs (id) ON DELETE CASCADE,
    part   integer NOT NULL,
    bytes  bytea   NOT NULL,
    PRIMARY KEY (job_id, part)
  );
`)
