import * as SqlClient from "@effect/sql/SqlClient"
import { Outbox } from "@roster/application"
import { DomainEvent } from "@roster/domain"
import { Array, Effect, Layer } from "effect"
import { decodeRows, jsonb } from "./rows.js"

const decodeEvents = decodeRows(DomainEvent)

/** A statement takes at most 65,535 parameters; five per event. */
const EVENTS_PER_INSERT = 1_000

/**
 * Events are kept in the order they were recorded (`position`), which a dispatcher follows. An
 * event waits for a dispatcher while `outbox_pending` holds its position (a trigger puts it there
 * as the event is written, see migration 0025); dispatching deletes that row and leaves the event
 * as it was written.
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
          WHERE organization_id = ${organizationId} AND data -> 'subscriber' ->> 'id' = ${subscriberId}
          ORDER BY position`.pipe(Effect.flatMap(decodeEvents), Effect.orDie),

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

      // Inside a transaction the claimed pending rows stay locked until it ends; other dispatchers
      // skip them rather than wait. Outside one, the lock ends with the statement.
      claimUndispatched: (limit) =>
        sql`
          SELECT e.id, e.organization_id, e.type, e.occurred_at, e.data
          FROM (SELECT position FROM outbox_pending ORDER BY position LIMIT ${limit} FOR UPDATE SKIP LOCKED) AS claimed
          JOIN outbox_events e ON e.position = claimed.position
          ORDER BY claimed.position`.pipe(Effect.flatMap(decodeEvents), Effect.orDie),

      markDispatched: (ids) =>
        ids.length === 0 ? Effect.void : sql`
          DELETE FROM outbox_pending p USING outbox_events e
          WHERE e.id = ANY(${ids}::uuid[]) AND p.position = e.position`.pipe(Effect.asVoid, Effect.orDie),

      // Old events are found by a BRIN index on `occurred_at`; which of them go first does not matter.
      pruneDispatched: (before, limit) =>
        sql<{ readonly id: string }>`
          DELETE FROM outbox_events WHERE id IN (
            SELECT e.id FROM outbox_events e
            WHERE e.occurred_at < ${before}
              AND NOT EXISTS (SELECT 1 FROM outbox_pending p WHERE p.position = e.position)
              AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id)
            LIMIT ${limit}
          )
          RETURNING id`.pipe(Effect.map((rows) => rows.length), Effect.orDie)
    })
  })
)
