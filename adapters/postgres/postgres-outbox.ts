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
 * event is undispatched until `dispatched_at` is set; the partial index `outbox_events_pending_idx`
 * holds exactly those, so a claim reads only what is left to do.
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

      // Inside a transaction the rows stay locked until it ends; other dispatchers skip them
      // rather than wait. Outside one, the lock ends with the statement.
      claimUndispatched: (limit) =>
        sql`
          SELECT id, organization_id, type, occurred_at, data FROM outbox_events
          WHERE dispatched_at IS NULL
          ORDER BY position
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED`.pipe(Effect.flatMap(decodeEvents), Effect.orDie),

      // An event dispatched already keeps its first time.
      markDispatched: (ids, at) =>
        ids.length === 0 ? Effect.void : sql`
          UPDATE outbox_events SET dispatched_at = ${at}
          WHERE id = ANY(${ids}::uuid[]) AND dispatched_at IS NULL`.pipe(Effect.asVoid, Effect.orDie),

      pruneDispatched: (before, limit) =>
        sql<{ readonly id: string }>`
          DELETE FROM outbox_events WHERE id IN (
            SELECT e.id FROM outbox_events e
            WHERE e.dispatched_at < ${before}
              AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id)
            ORDER BY e.dispatched_at
            LIMIT ${limit}
          )
          RETURNING id`.pipe(Effect.map((rows) => rows.length), Effect.orDie)
    })
  })
)
