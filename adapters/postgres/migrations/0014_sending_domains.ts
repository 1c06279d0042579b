import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * Custom sending domains: one per organization at most, and each domain with one organization
 * (stored lower case). `provider_id` is the email provider's id of the domain; `records` the DNS
 * records its owner adds, as the provider last told them. While a domain is `pending`, the worker
 * checks it with the provider when `next_check_at` comes; a worker checking one moves it forward
 * first, so that no other worker checks it at the same time.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
  CREATE TABLE sending_domains (
    organization_id uuid        PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
    name            text        NOT NULL,
    provider_id     text        NOT NULL,
    status          text        NOT NULL,
    records         jsonb       NOT NULL,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    checked_at      timestamptz,
    verified_at     timestamptz,
    next_check_at   timestamptz,
    CONSTRAINT sending_domains_name_key UNIQUE (name),
    CONSTRAINT sending_domains_status_check CHECK (status IN ('pending', 'verified', 'failed'))
  );
  CREATE INDEX sending_domains_due_idx ON sending_domains (next_check_at) WHERE status = 'pending';
`)
