import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * Each organization's account with the payment provider: its customer (one per organization),
 * the subscription last applied and when the provider made that change, so that older events
 * delivered late are passed over, and when an ended subscription's plan fell back to free. The ids of the provider's events taken, so each is applied once.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
  CREATE TABLE billing_accounts (
    organization_id      uuid        PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
    customer_id          text        UNIQUE,
    subscription_id      text,
    price_id             text,
    status               text        NOT NULL,
    current_period_end   timestamptz,
    cancel_at_period_end boolean     NOT NULL,
    last_change_at       timestamptz,
    settled_at           timestamptz,
    updated_at           timestamptz NOT NULL,
    CONSTRAINT billing_accounts_status_check CHECK (status IN (
      'none', 'incomplete', 'incomplete_expired', 'trialing', 'active', 'past_due', 'canceled', 'unpaid', 'paused'
    ))
  );
  CREATE INDEX billing_accounts_ending ON billing_accounts (current_period_end)
    WHERE settled_at IS NULL AND status IN ('canceled', 'unpaid', 'incomplete_expired', 'paused');
  CREATE TABLE billing_events (
    event_id    text        PRIMARY KEY,
    received_at timestamptz NOT NULL
  );
`)
