import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * An organization's subscriber count, spread over a few rows so that creates do not queue behind
 * one another on the organization's row. Each row counts what was reserved through it (`used`,
 * which may fall below zero: only the sum is a count) and, under a limit, may go up to its share
 * of it (`allowance`); the shares add up to the limit they were made for (`quota`, null for none).
 * Taking the counts over, the first reservation of each organization makes new shares.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
  CREATE TABLE organization_subscriber_slots (
    organization_id uuid     NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    shard           smallint NOT NULL,
    used            integer  NOT NULL,
    allowance       integer,
    quota           integer,
    PRIMARY KEY (organization_id, shard),
    CONSTRAINT organization_subscriber_slots_within CHECK (allowance IS NULL OR used <= allowance)
  );
  INSERT INTO organization_subscriber_slots (organization_id, shard, used, allowance, quota)
    SELECT id, 0, subscriber_count, subscriber_count, -1 FROM organizations;
  ALTER TABLE organizations DROP COLUMN subscriber_count;
`)
