import * as SqlClient from "@effect/sql/SqlClient"
import { Outbox } from "@roster/application"
import { DomainEvent } from "@roster/domain"
import { Array, Effect, Layer } from "effect"
import { decodeRows, jsonb } from "./rows.js"

const decodeEvents = decodeRows(DomainEvent)

/** A statement takes at most 65,535 parameters; five per event. */
const EVENTS_PER_INSERT = 1_000

/**
 * Events are kept in the order they were recorded (`position`), each with the transaction that
 * recorded it (`xid`). A dispatcher follows `(xid, position)` from the one-row
 * `outbox_dispatch_mark` up to the oldest transaction still open (`pg_snapshot_xmin`): everything
 * before that point has committed or never will, so no event can commit behind the mark. Dispatch
 * moves the mark and writes nothing to the events themselves.
 */
export const PostgresOutboxLive = Layer.effect(
  Outbox,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const insert = (events: ReadonlyArray<DomainEvent>) =>
      sql`INSERT INTO outbox_events ${
        sql.insert(events.map((event) => ({
          id: event.id,
          organization_id: event.organizationId,
          type: event.type,
          occurred_at: event.occurredAt,
          data: jsonb(event.data)
        })))
      }`

    /** The events ahead of a mark (`mark`, its alias) that no open transaction can still precede. */
    const ahead = (mark: string) =>
      sql`
        SELECT e.id, e.organization_id, e.type, e.occurred_at, e.data FROM outbox_events e
        WHERE (e.xid, e.position) > (${sql(mark)}.xid, ${sql(mark)}.position) AND e.xid < pg_snapshot_xmin(pg_current_snapshot())`

    return Outbox.of({
      // One multi-row INSERT per thousand events, in order, so positions follow the given order.
      record: (events) =>
        Effect.forEach(Array.chunksOf(events, EVENTS_PER_INSERT), insert, { discard: true }).pipe(Effect.orDie),

      recorded: (organizationId) =>
        sql`
          SELECT id, organization_id, type, occurred_at, data FROM outbox_events
          WHERE organization_id = ${organizationId}
          ORDER BY position`.pipe(Effect.flatMap(decodeEvents), Effect.orDie),

      recordedAbout: (organizationId, subscriberId) =>
        sql`
          SELECT id, organization_id, type, occurred_at, data FROM outbox_events
          WHERE data -> 'subscriber' ->> 'id' = ${subscriberId} AND organization_id = ${organizationId}
          ORDER BY position`.pipe(Effect.flatMap(decodeEvents), Effect.orDie),

      // Both read the subscriber's events off `outbox_events_subscriber_idx`, in position order.
      recordedAboutNewestFirst: (organizationId, subscriberId, { before, limit }) =>
        sql`
          SELECT id, organization_id, type, occurred_at, data FROM outbox_events
          WHERE data -> 'subscriber' ->> 'id' = ${subscriberId} AND organization_id = ${organizationId}${
          before === undefined ? sql`` : sql`
            AND position < (
              SELECT position FROM outbox_events
              WHERE id = ${before} AND data -> 'subscriber' ->> 'id' = ${subscriberId} AND organization_id = ${organizationId}
            )`
        }
          ORDER BY position DESC
          LIMIT ${limit}`.pipe(Effect.flatMap(decodeEvents), Effect.orDie),

      findByIds: (organizationId, ids) =>
        ids.length === 0
          ? Effect.succeed([])
          : sql`
          SELECT id, organization_id, type, occurred_at, data FROM outbox_events
          WHERE id IN ${sql.in(ids)} AND organization_id = ${organizationId}
          ORDER BY position`.pipe(Effect.flatMap(decodeEvents), Effect.orDie),

      // Read backwards off `outbox_events_organization_idx`, the organization's events in position order.
      statusMovesNewestFirst: (organizationId, statuses, { before, limit }) => {
        if (statuses.length === 0 || limit <= 0) return Effect.succeed([])
        const moved = sql`
          organization_id = ${organizationId} AND type = 'subscriber.updated'
          AND data -> 'changed' @> '["status"]'::jsonb AND data -> 'subscriber' ->> 'status' IN ${sql.in(statuses)}`
        return sql`
          SELECT id, organization_id, type, occurred_at, data FROM outbox_events
          WHERE ${moved}${
          before === undefined ? sql`` : sql`
            AND position < (SELECT position FROM outbox_events WHERE id = ${before} AND ${moved})`
        }
          ORDER BY position DESC
          LIMIT ${limit}`.pipe(Effect.flatMap(decodeEvents), Effect.orDie)
      },

      // A note about the subscriber keeps only its id too.
      forgetSubscriber: (organizationId, subscriberId) =>
        sql`
          UPDATE outbox_events SET data = CASE
            WHEN data ? 'note' THEN jsonb_set(
              jsonb_set(data, '{subscriber}', jsonb_build_object('id', ${subscriberId}::text)),
              '{note}', jsonb_build_object('id', data -> 'note' -> 'id'))
            ELSE jsonb_set(data, '{subscriber}', jsonb_build_object('id', ${subscriberId}::text))
          END
          WHERE organization_id = ${organizationId} AND data -> 'subscriber' ->> 'id' = ${subscriberId}
            AND (data -> 'subscriber' <> jsonb_build_object('id', ${subscriberId}::text)
              OR (data ? 'note' AND data -> 'note' <> jsonb_build_object('id', data -> 'note' -> 'id')))
          RETURNING id`.pipe(Effect.map((rows) => rows.length), Effect.orDie),

      // Locking the mark makes the claim: another dispatcher skips it and gets nothing rather than
      // wait. The mark is locked only when there are events to claim, so that a claim that finds
      // none writes nothing. Outside a transaction the lock ends with the statement.
      claimUndispatched: (limit) =>
        sql`
          SELECT e.id, e.organization_id, e.type, e.occurred_at, e.data
          FROM (
            SELECT xid, position FROM outbox_dispatch_mark m
            WHERE EXISTS (${ahead("m")})
            FOR UPDATE SKIP LOCKED
          ) mark
          CROSS JOIN LATERAL (${ahead("mark")} ORDER BY e.xid, e.position LIMIT ${limit}) e`.pipe(Effect.flatMap(decodeEvents), Effect.orDie),

      // The mark only moves forward.
      markDispatchedThrough: (last, at) =>
        sql`
          UPDATE outbox_dispatch_mark m SET xid = e.xid, position = e.position, dispatched_at = ${at}
          FROM outbox_events e
          WHERE e.id = ${last} AND (e.xid, e.position) > (m.xid, m.position)`.pipe(Effect.asVoid, Effect.orDie),

      pruneDispatched: (before, limit) =>
        sql<{ readonly id: string }>`
          DELETE FROM outbox_events WHERE id IN (
            SELECT e.id FROM outbox_dispatch_mark m JOIN outbox_events e ON (e.xid, e.position) <= (m.xid, m.position)
            WHERE e.occurred_at < ${before}
              AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id)
            LIMIT ${limit}
          )
          RETURNING id`.pipe(Effect.map((rows) => rows.length), Effect.orDie)
    })
  })
)
