import * as SqlClient from "@effect/sql/SqlClient"
import { type MessageFilter, MessageRepository } from "@roster/application"
import { Message, MessageEvent, type MessageId, MessageStatus, OrganizationId } from "@roster/domain"
import { Effect, Layer, Option, Schema } from "effect"
import { decodeFirst, decodeRows } from "./rows.js"

/** The columns a {@link Message} is read from; `to` and `from` are named for the domain value. */
export const MESSAGE_COLUMNS = `id, organization_id, subscriber_id, template_id, campaign_id, kind, to_address AS "to", from_header AS "from",
  subject, html, text, headers, status, provider_id, error, attempt_count, created_at, updated_at`

const decodeMessage = decodeFirst(Message)
const decodeMessages = decodeRows(Message)
const decodeEvents = decodeRows(MessageEvent)
const decodeOwner = decodeFirst(Schema.Struct({ organizationId: OrganizationId }))
const decodeStatus = decodeFirst(Schema.Struct({ status: MessageStatus, recorded: Schema.Boolean }))

/** Oldest first, as they were made: the provider gets a batch in that order. */
const inOrder = (messages: ReadonlyArray<Message>): ReadonlyArray<Message> =>
  [...messages].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))

/**
 * Messages and their history. Leasing is one statement each way (a batch due again, else new
 * messages), `FOR UPDATE SKIP LOCKED` so that workers never wait on each other's rows; a batch
 * taken over is matched again by `next_attempt_at <= now` under the row lock, so two workers that
 * race for one batch never both lease it.
 */
export const PostgresMessageRepositoryLive = Layer.effect(
  MessageRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(MESSAGE_COLUMNS)
    const returning = sql.literal(MESSAGE_COLUMNS.replace(/(^|,\s*)(\w+)/g, "$1m.$2"))

    const insertEvent = (
      messageIds: ReadonlyArray<string>,
      event: { readonly type: string; readonly occurredAt: Date; readonly detail: string | null }
    ) =>
      sql`
        INSERT INTO message_events (id, message_id, organization_id, type, occurred_at, detail)
        SELECT gen_random_uuid(), id, organization_id, ${event.type}, ${event.occurredAt}, ${event.detail}
        FROM messages WHERE id = ANY(${messageIds}::uuid[])`

    const matching = ({ organizationId, status, subscriberId }: MessageFilter) =>
      sql`organization_id = ${organizationId}
        ${subscriberId === undefined ? sql`` : sql`AND subscriber_id = ${subscriberId}`}
        ${status === undefined ? sql`` : sql`AND status = ${status}`}`

    return MessageRepository.of({
      insert: (message, first) =>
        sql.withTransaction(Effect.gen(function*() {
          const inserted = yield* sql`
            INSERT INTO messages (
              id, organization_id, subscriber_id, template_id, campaign_id, kind, to_address, from_header, subject, html,
              text, headers, status, provider_id, error, attempt_count, next_attempt_at, created_at, updated_at
            ) VALUES (
              ${message.id}, ${message.organizationId}, ${message.subscriberId}, ${message.templateId},
              ${message.campaignId}, ${message.kind},
              ${message.to}, ${message.from}, ${message.subject}, ${message.html}, ${message.text},
              ${JSON.stringify(message.headers)}::jsonb, ${message.status}, ${message.providerId}, ${message.error},
              ${message.attemptCount}, ${message.status === "queued" ? message.createdAt : null}, ${message.createdAt},
              ${message.updatedAt}
            )
            ON CONFLICT (id) DO NOTHING
            RETURNING id`
          if (inserted.length === 0) return false
          yield* insertEvent([message.id], first)
          return true
        })).pipe(Effect.orDie),

      findById: (organizationId, id) =>
        sql`SELECT ${columns} FROM messages WHERE id = ${id} AND organization_id = ${organizationId}`.pipe(
          Effect.flatMap(decodeMessage),
          Effect.orDie
        ),

      organizationOf: (id) =>
        sql`SELECT organization_id FROM messages WHERE id = ${id}`.pipe(
          Effect.flatMap(decodeOwner),
          Effect.map(Option.map((row) => row.organizationId)),
          Effect.orDie
        ),

      history: (id) =>
        sql`
          SELECT type, occurred_at, detail FROM message_events
          WHERE message_id = ${id} ORDER BY occurred_at, id`.pipe(Effect.flatMap(decodeEvents), Effect.orDie),

      histories: (ids) =>
        ids.length === 0
          ? Effect.succeed(new Map())
          : sql`
            SELECT message_id, type, occurred_at, detail FROM message_events
            WHERE message_id = ANY(${ids}::uuid[]) ORDER BY message_id, occurred_at, id`.pipe(
            Effect.flatMap((rows) =>
              Effect.map(decodeEvents(rows), (events) => {
                const byMessage = new Map<MessageId, Array<MessageEvent>>()
                events.forEach((event, i) => {
                  const id = rows[i]!.message_id as MessageId
                  byMessage.set(id, [...(byMessage.get(id) ?? []), event])
                })
                return byMessage as ReadonlyMap<MessageId, ReadonlyArray<MessageEvent>>
              })
            ),
            Effect.orDie
          ),

      list: (query) =>
        sql`
          SELECT ${columns} FROM messages
          WHERE ${matching(query)}
            ${query.after === undefined ? sql`` : sql`AND (created_at, id) < (${new Date(query.after.value)}, ${query.after.id})`}
          ORDER BY created_at DESC, id DESC
          LIMIT ${query.limit} ${query.offset === undefined ? sql`` : sql`OFFSET ${query.offset}`}`.pipe(
          Effect.flatMap(decodeMessages),
          Effect.orDie
        ),

      count: (filter) =>
        sql`SELECT count(*)::integer AS count FROM messages WHERE ${matching(filter)}`.pipe(
          Effect.map((rows) => Number(rows[0]?.count ?? 0)),
          Effect.orDie
        ),

      anyDue: (now) =>
        sql`
          SELECT EXISTS (
            SELECT 1 FROM messages
            WHERE status = 'queued' AND lease_token IS NULL AND campaign_id IS NULL AND next_attempt_at <= ${now}
          ) OR EXISTS (
            SELECT 1 FROM messages
            WHERE status = 'queued' AND lease_token IS NOT NULL AND campaign_id IS NULL AND next_attempt_at <= ${now}
          ) AS due`.pipe(Effect.map((rows) => rows[0]?.due === true), Effect.orDie),

      leaseDue: ({ leaseMs, limit, newKey, now }) =>
        Effect.gen(function*() {
          const until = new Date(now.getTime() + leaseMs)
          const again = yield* sql`
            WITH head AS (
              SELECT lease_token FROM messages
              WHERE status = 'queued' AND lease_token IS NOT NULL AND campaign_id IS NULL AND next_attempt_at <= ${now}
              ORDER BY next_attempt_at, id
              LIMIT 1
              FOR UPDATE SKIP LOCKED
            )
            UPDATE messages m
            SET next_attempt_at = ${until}, attempt_count = m.attempt_count + 1, updated_at = ${now}
            FROM head
            WHERE m.lease_token = head.lease_token AND m.status = 'queued' AND m.next_attempt_at <= ${now}
            RETURNING m.lease_token AS key, ${returning}`
          if (again.length > 0) {
            return Option.some({ key: String(again[0]!.key), messages: inOrder(yield* decodeMessages(again)) })
          }
          const fresh = yield* sql`
            WITH due AS (
              SELECT id FROM messages
              WHERE status = 'queued' AND lease_token IS NULL AND campaign_id IS NULL AND next_attempt_at <= ${now}
              ORDER BY next_attempt_at, id
              LIMIT ${limit}
              FOR UPDATE SKIP LOCKED
            )
            UPDATE messages m
            SET lease_token = ${newKey}, next_attempt_at = ${until}, attempt_count = m.attempt_count + 1,
                updated_at = ${now}
            FROM due
            WHERE m.id = due.id
            RETURNING ${returning}`
          return fresh.length === 0
            ? Option.none()
            : Option.some({ key: newKey, messages: inOrder(yield* decodeMessages(fresh)) })
        }).pipe(Effect.orDie),

      markSent: (key, sent, at) =>
        sql.withTransaction(Effect.gen(function*() {
          const settled = yield* sql`
            UPDATE messages m
            SET status = 'sent', provider_id = s.provider_id, error = NULL, lease_token = NULL,
                next_attempt_at = NULL, updated_at = ${at}
            FROM unnest(${sent.map((s) => s.id)}::uuid[], ${sent.map((s) => s.providerId)}::text[])
              AS s(id, provider_id)
            WHERE m.id = s.id AND m.lease_token = ${key} AND m.status = 'queued'
            RETURNING m.id`
          yield* insertEvent(settled.map((row) => String(row.id)), { type: "sent", occurredAt: at, detail: null })
        })).pipe(Effect.orDie),

      postpone: (key, retryAt, error, at) =>
        sql.withTransaction(Effect.gen(function*() {
          const waiting = yield* sql`
            UPDATE messages SET next_attempt_at = ${retryAt}, error = ${error}, updated_at = ${at}
            WHERE lease_token = ${key} AND status = 'queued'
            RETURNING id`
          yield* insertEvent(waiting.map((row) => String(row.id)), { type: "retrying", occurredAt: at, detail: error })
        })).pipe(Effect.orDie),

      unbatch: (key, at) =>
        sql`
          UPDATE messages SET lease_token = id, next_attempt_at = ${at}, updated_at = ${at}
          WHERE lease_token = ${key} AND status = 'queued'`.pipe(Effect.asVoid, Effect.orDie),

      markFailed: (key, error, at) =>
        sql.withTransaction(Effect.gen(function*() {
          const failed = yield* sql`
            UPDATE messages SET status = 'failed', error = ${error}, lease_token = NULL, next_attempt_at = NULL,
                   updated_at = ${at}
            WHERE lease_token = ${key} AND status = 'queued'
            RETURNING id`
          yield* insertEvent(failed.map((row) => String(row.id)), { type: "failed", occurredAt: at, detail: error })
        })).pipe(Effect.orDie),

      findByProviderId: (providerId) =>
        sql`SELECT ${columns} FROM messages WHERE provider_id = ${providerId}`.pipe(
          Effect.flatMap(decodeMessage),
          Effect.orDie
        ),

      latestTo: (address) =>
        sql`
          SELECT DISTINCT ON (organization_id) ${columns} FROM messages
          WHERE lower(to_address) = lower(${address}) AND provider_id IS NOT NULL
          ORDER BY organization_id, id DESC`.pipe(Effect.flatMap(decodeMessages), Effect.orDie),

      claimReport: (organizationId, key, at) =>
        sql`
          INSERT INTO provider_reports (organization_id, report_key, applied_at)
          SELECT id, ${key}, ${at} FROM organizations WHERE id = ${organizationId}
          ON CONFLICT (organization_id, report_key) DO NOTHING
          RETURNING organization_id`.pipe(Effect.map((rows) => rows.length === 1), Effect.orDie),

      recordReport: (id, report, next) =>
        sql.withTransaction(Effect.gen(function*() {
          const current = yield* sql`SELECT status, true AS recorded FROM messages WHERE id = ${id} FOR UPDATE`.pipe(
            Effect.flatMap(decodeStatus)
          )
          if (Option.isNone(current)) return false
          const inserted = yield* sql`
            INSERT INTO message_events (id, message_id, organization_id, type, occurred_at, detail, provider_event_key)
            SELECT gen_random_uuid(), id, organization_id, ${report.type}, ${report.occurredAt}, ${report.detail},
                   ${report.key}
            FROM messages WHERE id = ${id}
            ON CONFLICT (provider_event_key) WHERE provider_event_key IS NOT NULL DO NOTHING
            RETURNING id`
          if (inserted.length === 0) return false
          const status = next(current.value.status)
          if (status !== current.value.status) {
            yield* sql`UPDATE messages SET status = ${status}, updated_at = ${report.occurredAt} WHERE id = ${id}`
          }
          return true
        })).pipe(Effect.orDie)
    })
  })
)
