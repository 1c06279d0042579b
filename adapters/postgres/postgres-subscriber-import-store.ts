import * as SqlClient from "@effect/sql/SqlClient"
import {
  type ImportBatch,
  type ImportedSubscriber,
  type PreparedImportBatch,
  SubscriberImportStore,
  TagAssignments
} from "@roster/application"
import { emailKey, instantText, type Subscriber, type SubscriberId } from "@roster/domain"
import { Effect, Layer, Option } from "effect"
import type { ClientBase } from "pg"
import { subscriberColumns } from "./columns.js"
import { copyConnection, copyNullable, type CopyStatement, copyText, runInOrder } from "./copy-rows.js"
import { PgStatements } from "./pg-client.js"
import type { Row } from "./rows.js"
import { makeSubscriberSlots } from "./subscriber-slots.js"
import { transactional } from "./transactions.js"
import { subscriberOfRow } from "./trusted-rows.js"

const SUBSCRIBERS_COPY = "COPY subscribers " +
  "(id, organization_id, email, email_key, status, metadata, first_name, last_name, created_at, updated_at) FROM STDIN"
const ATTACHMENTS_COPY = "COPY subscriber_tags (subscriber_id, tag_id, subscribed_at) FROM STDIN"
const EVENTS_COPY = "COPY outbox_events (id, organization_id, type, occurred_at, data) FROM STDIN"
const COUNT_TAGS = "UPDATE tags SET subscriber_count = tags.subscriber_count + n.count " +
  "FROM unnest($1::uuid[], $2::integer[]) AS n(tag_id, count) " +
  "WHERE tags.id = n.tag_id AND tags.organization_id = $3 RETURNING tags.id"

/** A batch's new subscribers, their tags and their events, in COPY's text format (see `runInOrder`). */
interface CopyText {
  /** How many of the batch's new subscribers the text holds (the first ones). */
  readonly creates: number
  readonly subscriberRows: string
  readonly attachmentRows: string
  readonly eventRows: string
  /** How many attachments each tag gains. */
  readonly counts: ReadonlyMap<string, number>
}

/**
 * An import's batches: one statement reads the subscribers a batch names (one index lookup each),
 * and one more the tags of those it found; one transaction writes it: the room the plan leaves
 * reserved first; on a PostgreSQL server the new subscribers, their tags and their events copied
 * straight into their tables (`copyCreates`, from text `prepare` made before the transaction,
 * while the batch before it was written), then one statement for the rest (changed subscribers,
 * their new tags, the tags' counts and the events); on the embedded database, or when the copy
 * meets a row someone else wrote meanwhile, that one statement for everything.
 */
export const PostgresSubscriberImportStoreLive = Layer.effect(
  SubscriberImportStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const slots = makeSubscriberSlots(sql)
    const assignments = yield* TagAssignments
    const columns = sql.literal(subscriberColumns.map((c) => `s.${c}`).join(", "))

    interface Changes {
      readonly creates: ReadonlyArray<Subscriber>
      readonly updates: ImportBatch["updates"]
      readonly attachments: ImportBatch["attachments"]
      readonly events: ImportBatch["events"]
    }

    /**
     * Writes changes in one statement, each subscriber's only if no one else got there first (an
     * address made meanwhile, a subscriber changed since it was read), and their tags and events
     * only with them: the subscribers it made and those it changed.
     */
    const writeChanges = (batch: ImportBatch, changes: Changes) =>
      Effect.gen(function*() {
        const { at, organizationId } = batch
        const { creates, updates, events } = changes
        if (creates.length === 0 && updates.length === 0 && changes.attachments.length === 0 && events.length === 0) {
          return { created: new Set<SubscriberId>(), updated: new Set<SubscriberId>() }
        }
        const attachments = changes.attachments.flatMap(({ subscriberId, tagIds }) => tagIds.map((tagId) => ({ subscriberId, tagId })))
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
        return { created, updated }
      })

    /**
     * A batch's new subscribers (`creates`, of `batch.creates`), their tags and their events in
     * COPY's text format, and how many of them each tag gains.
     */
    const copyTextOf = (batch: ImportBatch, creates: ReadonlyArray<Subscriber>): CopyText => {
      const { organizationId } = batch
      const made = new Set<string>()
      const org = copyText(organizationId)
      let subscriberRows = ""
      for (const s of creates) {
        made.add(s.id)
        const created = instantText(s.createdAt)
        const updated = instantText(s.updatedAt)
        subscriberRows += `${s.id}\t${org}\t${copyText(s.email)}\t${copyText(emailKey(s.email))}\t${s.status}\t` +
          `${copyText(JSON.stringify(s.metadata))}\t${copyNullable(s.firstName)}\t${copyNullable(s.lastName)}\t${created}\t${updated}\n`
      }
      const at = instantText(batch.at)
      const counts = new Map<string, number>()
      let attachmentRows = ""
      for (const { subscriberId, tagIds } of batch.attachments) {
        if (!made.has(subscriberId)) continue
        for (const tagId of tagIds) {
          attachmentRows += `${subscriberId}\t${tagId}\t${at}\n`
          counts.set(tagId, (counts.get(tagId) ?? 0) + 1)
        }
      }
      let eventRows = ""
      for (const { event, subscriberId } of batch.events) {
        if (!made.has(subscriberId)) continue
        eventRows += `${event.id}\t${org}\t${event.type}\t${instantText(event.occurredAt)}\t${copyText(JSON.stringify(event.data))}\n`
      }
      return { creates: creates.length, subscriberRows, attachmentRows, eventRows, counts }
    }

    /**
     * The fast way in for a batch's new subscribers, on a PostgreSQL server: their rows, tags and
     * events copied straight into their tables (three COPY statements, handed to the connection
     * together with the savepoint before them and the statement raising their tags' counts after
     * them, so that each is sent as soon as the one before it is done). Whether it did; if
     * anything of it fails (someone made one of the addresses meanwhile, a tag was deleted), all
     * of it is taken back to the savepoint, and the batch is written the careful way instead.
     */
    const copyCreates = (client: ClientBase, batch: ImportBatch, text: CopyText) =>
      Effect.gen(function*() {
        const tagIds = [...text.counts.keys()].sort()
        const statements: Array<CopyStatement> = [{ text: "SAVEPOINT import_copy" }, { text: SUBSCRIBERS_COPY, rows: text.subscriberRows }]
        if (text.attachmentRows.length > 0) statements.push({ text: ATTACHMENTS_COPY, rows: text.attachmentRows })
        if (text.eventRows.length > 0) statements.push({ text: EVENTS_COPY, rows: text.eventRows })
        if (tagIds.length > 0) {
          // Last, so that the tags stay locked only to the end of the batch; in id order, so that
          // batches beside it never wait on each other in a cycle. A tag not of the organization is
          // left to the careful way, which passes it over.
          statements.push({ text: COUNT_TAGS, values: [tagIds, tagIds.map((id) => text.counts.get(id)!), batch.organizationId] })
        }
        const done = yield* runInOrder(client, statements).pipe(
          Effect.map((outcomes) => tagIds.length === 0 || outcomes[outcomes.length - 1] === tagIds.length),
          Effect.catchAll(() => Effect.succeed(false))
        )
        yield* done ? sql`RELEASE SAVEPOINT import_copy` : sql`ROLLBACK TO SAVEPOINT import_copy`
        return done
      })

    /** What `prepare` encoded ahead of each batch's transaction, when it runs on a PostgreSQL server. */
    const encoded = new WeakMap<PreparedImportBatch, CopyText>()
    const copies = Option.isSome(yield* Effect.serviceOption(PgStatements))

    return SubscriberImportStore.of({
      find: (organizationId, emailKeys) =>
        emailKeys.length === 0 ? Effect.succeed(new Map()) : Effect.gen(function*() {
          const rows = yield* sql<Row>`
            SELECT ${columns}, s.erasure_requested_at IS NOT NULL AS erasure_requested
            FROM unnest(${emailKeys}::text[]) AS k(email_key)
            CROSS JOIN LATERAL (
              SELECT * FROM subscribers
              -- A lookup per key in the index of email keys: the organization is compared in a way no
              -- index serves, so that the planner never scans the organization's rows for each key
              -- (which it did when it believed the organization small, one new since statistics were
              -- last taken, while an import grew it).
              WHERE email_key = k.email_key AND organization_id IS NOT DISTINCT FROM ${organizationId}
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

      // On a PostgreSQL server the new subscribers' COPY text is made here, ahead of the transaction.
      prepare: (batch) =>
        Effect.sync(() => {
          const prepared: PreparedImportBatch = { batch }
          if (copies && batch.creates.length > 0) encoded.set(prepared, copyTextOf(batch, batch.creates))
          return prepared
        }),

      write: (prepared) =>
        transactional(sql)(Effect.gen(function*() {
          const { batch } = prepared
          const { organizationId } = batch
          // A batch lost to a crash of the database server is only done again: its transaction
          // need not wait for the disk (the import's record of its progress goes with it).
          yield* sql`SET LOCAL synchronous_commit = off`
          const granted = yield* slots.reserveUpTo(organizationId, batch.creates.length, batch.max)
          const creates = batch.creates.slice(0, granted)
          const client = creates.length === 0 ? Option.none() : yield* copyConnection
          const ready = encoded.get(prepared)
          // Encoded again only when the plan had room for fewer of them than the batch makes.
          const text = ready !== undefined && ready.creates === creates.length ? ready : undefined
          const copied = Option.isSome(client)
            ? yield* copyCreates(client.value, batch, text ?? copyTextOf(batch, creates))
            : false
          const made = new Set<SubscriberId>(copied ? creates.map((s) => s.id) : [])
          const rest: Changes = {
            creates: copied ? [] : creates,
            updates: batch.updates,
            attachments: copied ? batch.attachments.filter(({ subscriberId }) => !made.has(subscriberId)) : batch.attachments,
            events: copied ? batch.events.filter(({ subscriberId }) => !made.has(subscriberId)) : batch.events
          }
          const written = yield* writeChanges(batch, rest)
          const created = copied ? made : written.created
          const { updated } = written
          if (created.size < granted) yield* slots.release(organizationId, granted - created.size)
          const conflicted = new Set<SubscriberId>([
            ...creates.filter((s) => !created.has(s.id)).map((s) => s.id),
            ...batch.updates.filter((u) => !updated.has(u.subscriber.id)).map((u) => u.subscriber.id)
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
