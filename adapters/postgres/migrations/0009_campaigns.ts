import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * Campaigns: one email to an audience. A campaign's row holds what it is and where it stands;
 * once it is sending, `sendout` holds what its emails are made of (the content, the `From` and the
 * organization's name of that moment), and `campaign_audiences` how far its audience has been
 * taken: recipients become messages in chunks, in subscriber id order after `cursor`, only
 * subscribers created before `fixed_at` among them. Taking the audience locks that row, never the
 * campaign's, so that serving the campaign goes on meanwhile.
 *
 * A campaign's message is unique per subscriber and carries no body: it is rendered when it is
 * handed over, and its subject is kept then.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
  CREATE TABLE campaigns (
    id              uuid        PRIMARY KEY,
    organization_id uuid        NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name            text        NOT NULL,
    kind            text        NOT NULL,
    template_id     uuid        REFERENCES email_templates (id) ON DELETE SET NULL,
    subject         text,
    html            text,
    text            text,
    tag_ids         uuid[]      NOT NULL DEFAULT '{}',
    exclude_tag_ids uuid[]      NOT NULL DEFAULT '{}',
    data            jsonb       NOT NULL DEFAULT '{}',
    status          text        NOT NULL,
    scheduled_at    timestamptz,
    started_at      timestamptz,
    finished_at     timestamptz,
    failure_reason  text,
    sandboxed       boolean     NOT NULL DEFAULT false,
    sendout         jsonb,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    CONSTRAINT campaigns_kind_check CHECK (kind IN ('transactional', 'marketing')),
    CONSTRAINT campaigns_status_check CHECK (status IN ('draft', 'scheduled', 'sending', 'sent', 'failed', 'cancelled'))
  );
  CREATE INDEX campaigns_organization_idx ON campaigns (organization_id, created_at, id);
  CREATE INDEX campaigns_scheduled_idx ON campaigns (scheduled_at) WHERE status = 'scheduled';
  CREATE INDEX campaigns_sending_idx ON campaigns (id) WHERE status = 'sending';

  CREATE TABLE campaign_audiences (
    campaign_id uuid        PRIMARY KEY REFERENCES campaigns (id) ON DELETE CASCADE,
    fixed_at    timestamptz NOT NULL,
    cursor      uuid,
    complete    boolean     NOT NULL DEFAULT false
  );
  CREATE INDEX campaign_audiences_open_idx ON campaign_audiences (fixed_at) WHERE NOT complete;

  ALTER TABLE messages ADD COLUMN campaign_id uuid REFERENCES campaigns (id) ON DELETE CASCADE;
  CREATE UNIQUE INDEX messages_campaign_recipient_unique ON messages (campaign_id, subscriber_id)
    WHERE campaign_id IS NOT NULL;
  -- Single sends and campaign emails are leased apart: single sends first, campaigns in turn.
  DROP INDEX messages_due_batches_idx;
  DROP INDEX messages_due_idx;
  CREATE INDEX messages_due_batches_idx ON messages (next_attempt_at, id)
    WHERE status = 'queued' AND lease_token IS NOT NULL AND campaign_id IS NULL;
  CREATE INDEX messages_due_idx ON messages (next_attempt_at, id)
    WHERE status = 'queued' AND lease_token IS NULL AND campaign_id IS NULL;
  CREATE INDEX messages_campaign_batches_idx ON messages (next_attempt_at, id)
    WHERE status = 'queued' AND lease_token IS NOT NULL AND campaign_id IS NOT NULL;
  CREATE INDEX messages_campaign_queued_idx ON messages (campaign_id, id) WHERE status = 'queued';
`)
