import * as SqlClient from "@effect/sql/SqlClient"
import { type ImportedSubscriber, SubscriberImportStore, TagAssignments } from "@roster/application"
import { emailKey, type SubscriberId } from "@roster/domain"
import { Effect, Layer } from "effect"
import { subscriberColumns } from "./columns.js"
import type { Row } from "./rows.js"
import { makeSubscriberSlots } from "./subscriber-slots.js"
import { transactional } from "./transactions.js"
import { subscriberOfRow } from "./trusted-rows.js"

/**
 * An import's batches: one statement reads the subscribers a batch names (one index lookup each),
 * and one more the tags of those it found; one
 * transaction writes it (the room the plan leaves reserved first, then one statement for the
 * subscribers, their tags, the tags' counts and the events).
 */
export const PostgresSubscriberImportStoreLive = Layer.effect(
  SubscriberImportStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const slots = makeSubscriberSlots(sql)
    const assignments = yield* TagAssignments
    const columns = sql.literal(subscriberColumns.map((c) => `s.${c}`).join(", "))

    return SubscriberImportStore.of({
      find: (organizationId, emailKeys) =>
        emailKeys.length === 0 ? Effect.succeed(new Map()) : Effect.gen(function*() {
          const rows = yield* sql<Row>`
            SELECT ${columns}, s.erasure_requested_at IS NOT NULL AS erasure_requested
            FROM unnest(${emailKeys}::text[]) AS k(email_key)
            CROSS JOIN LATERAL (
              SELECT * FROM subscribers
              WHERE organization_id = ${organizationId} AND email_key = k.email_key
              -- Keeps the lookup a lookup per key (an index probe), never a scan of the organization,
              -- whatever the planner believes of its size while an import grows it.
              LIMIT 1
            ) AS s`
          if (rows.length === 0) return new Map()
          const subscribers = rows.map(subscriberOfRow)
          const tags = yield* assignments.tagsOf(organizationId, subscribers.map((s) => s.id))
          return new Map(subscribers.map((subscriber, i): readonly [string, ImportedSubscriber] => [
            emailKey(subscriber.email),
            { subscriber, tags: tags.get(subscriber.id) ?? [], erasureRequested: rows[i]!.erasure_requested === true }
          ]))
        }).pipe(Effect.orDie),

      write: (batch) =>
        transactional(sql)(Effect.gen(function*() {
          const { at, organizationId } = batch
          // A batch lost to a crash of the database server is only done again: its transaction
          // need not wait for the disk (the import's record of its progress goes with it).
          yield* sql`SET LOCAL synchronous_commit = off`
          const granted = yield* slots.reserveUpTo(organizationId, batch.creates.length, batch.max)
          const creates = batch.creates.slice(0, granted)
          const { updates } = batch
          const attachments = batch.attachments.flatMap(({ subscriberId, tagIds }) => tagIds.map((tagId) => ({ subscriberId, tagId })))
          const events = batch.events
          // Each list goes as one JSON document, which the server reads far faster than arrays of values.
          const createRows = JSON.stringify(creates.map((s) => ({
            id: s.id,
            email: s.email,
            email_key: emailKey(s.email),
            status: s.status,
            metadata: s.metadata,
            first_name: s.firstName,
            last_name: s.lastName,
            at: s.createdAt
          })))
          const updateRows = JSON.stringify(updates.map(({ seen, subscriber: s }) => ({
            id: s.id,
            seen,
            status: s.status,
            metadata: s.metadata,
            first_name: s.firstName,
            last_name: s.lastName,
            at: s.updatedAt
          })))
          const attachmentRows = JSON.stringify(attachments.map((a) => ({ subscriber_id: a.subscriberId, tag_id: a.tagId })))
          const eventRows = JSON.stringify(events.map((e) => ({
            id: e.event.id,
            subscriber_id: e.subscriberId,
            tag_id: e.tagId,
            type: e.event.type,
            at: e.event.occurredAt,
            data: e.event.data
          })))
          const written = yield* sql<{ readonly kind: "created" | "updated"; readonly id: SubscriberId }>`
            WITH inserted AS (
              INSERT INTO subscribers
                (id, organization_id, email, email_key, status, metadata, first_name, last_name, created_at, updated_at)
              SELECT r.id, ${organizationId}, r.email, r.email_key, r.status, r.metadata, r.first_name, r.last_name, r.at, r.at
              FROM jsonb_to_recordset(${createRows}::jsonb) AS r(
                id uuid, email text, email_key text, status text, metadata jsonb, first_name text, last_name text, at timestamptz
              )
              ON CONFLICT ON CONSTRAINT subscribers_email_unique DO NOTHING
              RETURNING id
            ), updated AS (
              UPDATE subscribers s
              SET status = u.status, metadata = u.metadata, first_name = u.first_name, last_name = u.last_name,
                  updated_at = u.at
              FROM jsonb_to_recordset(${updateRows}::jsonb) AS u(
                id uuid, seen timestamptz, status text, metadata jsonb, first_name text, last_name text, at timestamptz
              )
              WHERE s.id = u.id AND s.organization_id = ${organizationId} AND s.updated_at = u.seen
                AND s.erasure_requested_at IS NULL
              RETURNING s.id
            ), written AS (
              SELECT id FROM inserted UNION ALL SELECT id FROM updated
            ), attached AS (
              INSERT INTO subscriber_tags (subscriber_id, tag_id, subscribed_at)
              SELECT a.subscriber_id, a.tag_id, ${at}::timestamptz
              FROM jsonb_to_recordset(${attachmentRows}::jsonb) AS a(subscriber_id uuid, tag_id uuid)
              JOIN tags t ON t.id = a.tag_id AND t.organization_id = ${organizationId}
              -- Tested as an expression, not joined: the planner takes both lists for a handful of rows
              -- and would join them by comparing every pair; this looks each one up in a hash.
              WHERE (a.subscriber_id IN (SELECT id FROM written)) IS TRUE
              ON CONFLICT (subscriber_id, tag_id) DO NOTHING
              RETURNING subscriber_id, tag_id
            ), counted AS (
              UPDATE tags SET subscriber_count = tags.subscriber_count + n.count
              FROM (SELECT tag_id, count(*)::integer AS count FROM attached GROUP BY tag_id) AS n
              WHERE tags.id = n.tag_id
            ), recorded AS (
              INSERT INTO outbox_events (id, organization_id, type, occurred_at, data)
              SELECT e.id, ${organizationId}, e.type, e.at, e.data
              FROM ROWS FROM (jsonb_to_recordset(${eventRows}::jsonb) AS (
                id uuid, subscriber_id uuid, tag_id uuid, type text, at timestamptz, data jsonb
              )) WITH ORDINALITY AS e(id, subscriber_id, tag_id, type, at, data, n)
              WHERE CASE WHEN e.tag_id IS NULL THEN e.subscriber_id IN (SELECT id FROM written)
                         ELSE (e.subscriber_id, e.tag_id) IN (SELECT subscriber_id, tag_id FROM attached) END
              ORDER BY e.n
            )
            SELECT 'created' AS kind, id FROM inserted UNION ALL SELECT 'updated' AS kind, id FROM updated`
          const created = new Set<SubscriberId>()
          const updated = new Set<SubscriberId>()
          for (const row of written) (row.kind === "created" ? created : updated).add(row.id)
          if (created.size < granted) yield* slots.release(organizationId, granted - created.size)
          const conflicted = new Set<SubscriberId>([
            ...creates.filter((s) => !created.has(s.id)).map((s) => s.id),
            ...updates.filter((u) => !updated.has(u.subscriber.id)).map((u) => u.subscriber.id)
          ])
          const overLimit = new Set<SubscriberId>(batch.creates.slice(granted).map((s) => s.id))
          return { created, updated, conflicted, overLimit }
        })).pipe(Effect.orDie),

      // The tables an import grows, sampled again: the planner keeps no stale picture of a small
      // organization (whose pages it would read by scanning the table) until autovacuum comes by.
      settle: sql`ANALYZE subscribers, subscriber_tags, tags, outbox_events`.pipe(Effect.asVoid, Effect.orDie)
    })
  })
)
