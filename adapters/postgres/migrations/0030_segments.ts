import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * Segments: saved filters with a name, the filter kept as the JSON tree it was given (checked by
 * the domain before it is stored). Who matches is worked out by one compiled predicate each time.
 *
 * What the predicates need to be quick on a million subscribers: metadata equality is a
 * containment (`metadata @> '{"plan":"pro"}'`) that a GIN index of `jsonb_path_ops` answers (about
 * a third of the size of the default operator class, and containment is all it is asked); an
 * engagement condition walks an organization's events of one kind since an instant, with the
 * message id in the index so that the walk never visits the events table.
 *
 * `segment_instant` reads a metadata text as an instant by the domain's rules (`instantOf`): a
 * date `YYYY-MM-DD` as midnight UTC, or a date and time with seconds and a zone; anything else,
 * or a day that does not exist, is NULL, never an error.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
  CREATE TABLE segments (
    id              uuid        PRIMARY KEY,
    organization_id uuid        NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name            text        NOT NULL,
    description     text,
    filter          jsonb       NOT NULL,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL
  );
  CREATE INDEX segments_organization_idx ON segments (organization_id, created_at, id);

  CREATE INDEX subscribers_metadata_idx ON subscribers USING gin (metadata jsonb_path_ops);
  CREATE INDEX message_events_engagement_idx ON message_events (organization_id, type, occurred_at) INCLUDE (message_id);

  CREATE FUNCTION segment_instant(value text) RETURNS timestamptz
  LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
  BEGIN
    IF value ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' THEN
      RETURN (value || 'T00:00:00Z')::timestamptz;
    END IF;
    IF value ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]([.][0-9]{1,3})?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$' THEN
      RETURN value::timestamptz;
    END IF;
    RETURN NULL;
  EXCEPTION WHEN others THEN
    RETURN NULL;
  END
  $$;
`)
