import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type { Fragment } from "@effect/sql/Statement"
import {
  activityEventTypes,
  type CampaignRecipient,
  type LeasedCampaignBatch,
  OutgoingMail,
  type SendingCampaign
} from "@roster/application"
import {
  Campaign,
  CampaignId,
  Message,
  MessageId,
  type MessageKind,
  MessageStatus,
  OrganizationId,
  PlanTier,
  SubscriberId,
  SubscriberStatus,
  TemplateId
} from "@roster/domain"
import { Effect, Layer, Option, type ParseResult, Schema } from "effect"
import { campaignColumns } from "./postgres-campaign-repository.js"
import { MESSAGE_COLUMNS } from "./postgres-message-repository.js"
import { transactional } from "./transactions.js"
import { decodeFirst, decodeRow, decodeRows, type Row } from "./rows.js"
import { type Answer, makeWorkQueue } from "./work-queue.js"

/** Before every uuid: the position of a campaign none of whose recipients was leased yet. */
const NO_POSITION = "00000000-0000-0000-0000-000000000000"

const decodeMessages = decodeRows(Message)
const decodeStatus = decodeFirst(Schema.Struct({ status: MessageStatus, campaignId: Schema.NullOr(Schema.String) }))
const Sendout = Schema.Struct({
  content: Schema.Struct({ subject: Schema.String, html: Schema.NullOr(Schema.String), text: Schema.NullOr(Schema.String) }),
  from: Schema.String,
  organizationName: Schema.String
})
const decodeCampaignRow = decodeRow(Campaign)
const decodeSendout = Schema.decodeUnknown(Sendout)
const tiers: ReadonlySet<string> = new Set(PlanTier.literals)
const subscriberStatuses: ReadonlySet<string> = new Set(SubscriberStatus.literals)

/** Oldest first, as they were made: the provider gets a batch in that order. */
const inOrder = (messages: ReadonlyArray<Message>): ReadonlyArray<Message> =>
  [...messages].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))

/**
 * A leased recipient's row, read field by field: a campaign's worker reads one per email, and the
 * row is the one the statement just wrote, so only what the query cannot vouch for is checked.
 */
const recipientOf = (row: Row): CampaignRecipient => {
  const status = String(row.s_status)
  if (!subscriberStatuses.has(status)) throw new Error(`unknown subscriber status ${status}`)
  return {
    message: new Message({
      id: MessageId.make(String(row.id)),
      organizationId: OrganizationId.make(String(row.organization_id)),
      subscriberId: SubscriberId.make(String(row.subscriber_id)),
      templateId: row.template_id === null ? null : TemplateId.make(String(row.template_id)),
      campaignId: CampaignId.make(String(row.campaign_id)),
      kind: row.kind as MessageKind,
      to: String(row.to),
      from: String(row.from_header),
      subject: String(row.subject),
      html: null,
      text: null,
      headers: {},
      status: "queued",
      providerId: null,
      error: row.error === null ? null : String(row.error),
      attemptCount: Number(row.attempt_count),
      createdAt: row.created_at as Date,
      updatedAt: row.updated_at as Date
    }, true),
    status: status as SubscriberStatus,
    firstName: row.s_first_name === null ? null : String(row.s_first_name),
    lastName: row.s_last_name === null ? null : String(row.s_last_name),
    metadata: row.s_metadata as Record<string, unknown>,
    tagNames: row.s_tag_names as ReadonlyArray<string>,
    tokenVersion: Number(row.s_token_version),
    erasureRequested: row.s_erasure_requested === true
  }
}

/**
 * The outgoing mail queue over PostgreSQL: the one writer of `messages` and their events. Leasing
 * is one statement each way (a batch due again, else new messages), `FOR UPDATE SKIP LOCKED` so
 * that workers never wait on each other's rows; a batch taken over is matched again by
 * `next_attempt_at <= now` under the row lock, so two workers that race for one batch never both
 * lease it. A campaign batch is leased with its recipients and its campaign in one statement: the
 * claimer of a sending campaign makes one round trip per batch, and one for its outcome.
 */
export const PostgresOutgoingMailLive = Layer.effect(
  OutgoingMail,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    /** The caller's transaction when there is one (joined, no savepoint), else one of its own. */
    const transaction = transactional(sql)
    const columns = sql.literal(campaignColumns("campaigns"))
    const returning = sql.literal(MESSAGE_COLUMNS.replace(/(^|,\s*)(\w+)/g, "$1m.$2"))
    const messageQueue = makeWorkQueue(sql, {
      table: "messages",
      alias: "m",
      key: ["id"],
      due: "next_attempt_at",
      token: "lease_token"
    })
    const queued = sql`m.status = 'queued'`
    /**
     * What a sending campaign's emails are made of, kept once read: while a campaign is `sending`
     * nothing its emails are made of changes (it is edited only as a draft or scheduled).
     */
    const sendingCampaigns = new Map<string, SendingCampaign>()
    const sendingCampaign = (id: string) =>
      Effect.gen(function*() {
        const known = sendingCampaigns.get(id)
        if (known !== undefined) return known
        const rows = yield* sql`SELECT ${columns}, sendout FROM campaigns WHERE id = ${id}`
        const found: SendingCampaign = {
          campaign: yield* decodeCampaignRow(rows[0]!),
          sendout: yield* decodeSendout(rows[0]!.sendout)
        }
        if (sendingCampaigns.size >= 1_000) sendingCampaigns.clear()
        sendingCampaigns.set(id, found)
        return found
      })

    const insertEvent = (
      messageIds: ReadonlyArray<string>,
      event: { readonly type: string; readonly occurredAt: Date; readonly detail: string | null }
    ) =>
      sql`
        INSERT INTO message_events (id, message_id, organization_id, type, occurred_at, detail)
        SELECT gen_random_uuid(), id, organization_id, ${event.type}, ${event.occurredAt}, ${event.detail}
        FROM messages WHERE id = ANY(${messageIds}::uuid[])`

    /** The events of messages just changed: one row per message, in the same statement's wake. */
    const recordEvents = (rows: ReadonlyArray<Row>, type: string, at: Date, detail: string | null) =>
      rows.length === 0 ? Effect.void : sql`
        INSERT INTO message_events (id, message_id, organization_id, type, occurred_at, detail)
        SELECT gen_random_uuid(), id, organization_id, ${type}, ${at}, ${detail}
        FROM unnest(${rows.map((r) => String(r.id))}::uuid[], ${rows.map((r) => String(r.organization_id))}::uuid[])
          AS m(id, organization_id)`.pipe(Effect.asVoid)

    /** The leased batch's recipients, with their subscribers as they are now, and their organization's plan. */
    const recipients: Answer = {
      select: sql`
        leased.lease_token AS key, leased.id, leased.organization_id, leased.subscriber_id, leased.template_id,
        leased.campaign_id, leased.kind, leased.from_header, leased.subject, leased.error, leased.attempt_count,
        leased.created_at, leased.updated_at, s.email AS to,
        s.status AS s_status, s.first_name AS s_first_name, s.last_name AS s_last_name, s.metadata AS s_metadata,
        s.preference_token_version AS s_token_version, s.erasure_requested_at IS NOT NULL AS s_erasure_requested,
        COALESCE((
          SELECT array_agg(t.name ORDER BY t.name) FROM subscriber_tags st JOIN tags t ON t.id = st.tag_id
          WHERE st.subscriber_id = s.id
        ), '{}') AS s_tag_names,
        o.tier`,
      from: sql`leased
        JOIN subscribers s ON s.id = leased.subscriber_id
        JOIN organizations o ON o.id = leased.organization_id
        ORDER BY leased.subscriber_id`
    }

    /**
     * A batch due again: the rows of the lease of the first message due whose lease ran out (or
     * that was postponed), taken over whole. The row lock makes a second claimer skip the head;
     * `next_attempt_at <= now` under the lock makes it skip a batch leased again since it looked.
     */
    const batchDueAgain = (now: Date, until: Date, kind: Fragment) => ({
      pick: {
        columns: sql`m.lease_token`,
        where: sql`m.status = 'queued' AND m.lease_token IS NOT NULL AND ${kind} AND m.next_attempt_at <= ${now}`,
        orderBy: sql`m.next_attempt_at, m.id`,
        limit: 1
      },
      lease: {
        until,
        set: sql`attempt_count = m.attempt_count + 1, updated_at = ${now}`,
        match: sql`m.lease_token = due.lease_token AND m.status = 'queued' AND m.next_attempt_at <= ${now}`
      }
    })

    const toBatch = (rows: ReadonlyArray<Row>): Effect.Effect<Option.Option<LeasedCampaignBatch>, SqlError | ParseResult.ParseError> =>
      rows.length === 0 ? Effect.succeed(Option.none()) : Effect.gen(function*() {
        const first = rows[0]!
        const campaign = yield* sendingCampaign(String(first.campaign_id))
        const tier = String(first.tier)
        if (!tiers.has(tier)) return yield* Effect.die(new Error(`unknown plan tier ${tier}`))
        return Option.some({
          key: String(first.key),
          campaign,
          tier: tier as PlanTier,
          recipients: rows.map(recipientOf),
          position: String(rows[rows.length - 1]!.subscriber_id)
        })
      })

    return OutgoingMail.of({
      // One statement for the whole batch. A message's history begins with its creation, read from
      // the row itself (`created_as`, `created_at`, and `error` when held): no event row is written.
      enqueue: (messages) =>
        messages.length === 0 ? Effect.succeed(new Set<MessageId>()) : sql`
          INSERT INTO messages (
            id, organization_id, subscriber_id, template_id, campaign_id, kind, to_address, from_header, subject, html,
            text, headers, status, created_as, provider_id, error, attempt_count, next_attempt_at, created_at, updated_at
          )
          SELECT id, organization_id, subscriber_id, template_id, campaign_id, kind, to_address, from_header, subject, html,
                 text, headers::jsonb, status, status, provider_id, error, attempt_count,
                 CASE WHEN status = 'queued' THEN created_at END, created_at, updated_at
          FROM unnest(
            ${messages.map((m) => m.id)}::uuid[], ${messages.map((m) => m.organizationId)}::uuid[],
            ${messages.map((m) => m.subscriberId)}::uuid[], ${messages.map((m) => m.templateId)}::uuid[],
            ${messages.map((m) => m.campaignId)}::uuid[], ${messages.map((m) => m.kind)}::text[],
            ${messages.map((m) => m.to)}::text[], ${messages.map((m) => m.from)}::text[],
            ${messages.map((m) => m.subject)}::text[], ${messages.map((m) => m.html)}::text[],
            ${messages.map((m) => m.text)}::text[], ${messages.map((m) => JSON.stringify(m.headers))}::text[],
            ${messages.map((m) => m.status)}::text[], ${messages.map((m) => m.providerId)}::text[],
            ${messages.map((m) => m.error)}::text[], ${messages.map((m) => m.attemptCount)}::int[],
            ${messages.map((m) => m.createdAt)}::timestamptz[], ${messages.map((m) => m.updatedAt)}::timestamptz[]
          ) AS m(id, organization_id, subscriber_id, template_id, campaign_id, kind, to_address, from_header, subject, html,
                 text, headers, status, provider_id, error, attempt_count, created_at, updated_at)
          ON CONFLICT (id) DO NOTHING
          RETURNING id`.pipe(
          Effect.map((rows) => new Set(rows.map((row) => MessageId.make(String(row.id))))),
          Effect.orDie
        ),

      enqueueAudience: ({ campaign, from, subscriberIds }, at) =>
        subscriberIds.length === 0 ? Effect.succeed(0) : sql`
          INSERT INTO messages (
            id, organization_id, subscriber_id, template_id, campaign_id, kind, to_address, from_header, subject,
            headers, status, attempt_count, next_attempt_at, created_at, updated_at
          )
          SELECT gen_random_uuid(), ${campaign.organizationId}, s.id, ${campaign.templateId}, ${campaign.id},
                 ${campaign.kind}, s.email, ${from}, '', '{}', 'queued', 0, ${at}, ${at}, ${at}
          FROM unnest(${subscriberIds}::uuid[]) AS chosen(id) JOIN subscribers s ON s.id = chosen.id
          ON CONFLICT (campaign_id, subscriber_id) WHERE campaign_id IS NOT NULL DO NOTHING
          RETURNING 1`.pipe(Effect.map((rows) => rows.length), Effect.orDie),

      anyDue: (now) =>
        sql`
          SELECT EXISTS (
            SELECT 1 FROM messages
            WHERE status = 'queued' AND lease_token IS NULL AND campaign_id IS NULL AND next_attempt_at <= ${now}
          ) OR EXISTS (
            SELECT 1 FROM messages
            WHERE status = 'queued' AND lease_token IS NOT NULL AND campaign_id IS NULL AND next_attempt_at <= ${now}
          ) OR EXISTS (
            SELECT 1 FROM campaigns c
            WHERE c.status = 'sending' AND EXISTS (
              SELECT 1 FROM messages q
              WHERE q.campaign_id = c.id AND q.status = 'queued' AND (q.lease_token IS NULL OR q.next_attempt_at <= ${now})
            )
          ) AS due`.pipe(Effect.map((rows) => rows[0]?.due === true), Effect.orDie),

      lease: ({ leaseMs, limit, newKey, now }) =>
        Effect.gen(function*() {
          const until = new Date(now.getTime() + leaseMs)
          const again = yield* messageQueue.claim({
            ...batchDueAgain(now, until, sql`m.campaign_id IS NULL`),
            returning: sql`m.lease_token AS key, ${returning}`
          })
          if (again.length > 0) {
            return Option.some({ key: String(again[0]!.key), messages: inOrder(yield* decodeMessages(again)) })
          }
          const fresh = yield* messageQueue.claim({
            pick: {
              where: sql`m.status = 'queued' AND m.lease_token IS NULL AND m.campaign_id IS NULL AND m.next_attempt_at <= ${now}`,
              orderBy: sql`m.next_attempt_at, m.id`,
              limit
            },
            lease: { token: newKey, until, set: sql`attempt_count = m.attempt_count + 1, updated_at = ${now}` },
            returning
          })
          return fresh.length === 0
            ? Option.none()
            : Option.some({ key: newKey, messages: inOrder(yield* decodeMessages(fresh)) })
        }).pipe(Effect.orDie),

      leaseCampaign: ({ after, leaseMs, limit, newKey, now, overdue = true, positions = new Map() }) =>
        Effect.gen(function*() {
          const until = new Date(now.getTime() + leaseMs)
          if (overdue) {
            const again = yield* messageQueue.claim({
              ...batchDueAgain(
                now,
                until,
                sql`m.campaign_id IS NOT NULL
                  AND EXISTS (SELECT 1 FROM campaigns c WHERE c.id = m.campaign_id AND c.status = 'sending')`
              ),
              returning: sql`m.*`,
              answer: recipients
            })
            if (again.length > 0) return yield* toBatch(again)
          }
          // A campaign's recipients are leased in subscriber order, from where the caller's last batch of
          // it ended: the index is read from there on, not across every email settled before it. The
          // look for a campaign and the pick are subqueries of their own, so that the position bounds
          // the index scan instead of filtering its rows.
          const fresh = yield* messageQueue.claim({
            pick: {
              ctes: sql`position AS (
                SELECT * FROM unnest(${[...positions.keys()]}::uuid[], ${[...positions.values()]}::uuid[])
                  AS p(campaign_id, subscriber_id)
              ), pick AS (
                SELECT c.id, COALESCE(p.subscriber_id, ${NO_POSITION}::uuid) AS position
                FROM campaigns c LEFT JOIN position p ON p.campaign_id = c.id
                WHERE c.status = 'sending' AND (
                  SELECT true FROM messages q
                  WHERE q.campaign_id = c.id AND q.status = 'queued' AND q.lease_token IS NULL
                    AND q.subscriber_id > COALESCE(p.subscriber_id, ${NO_POSITION}::uuid)
                  LIMIT 1
                )
                ORDER BY (c.id > ${after ?? NO_POSITION}::uuid) DESC, c.id
                LIMIT 1
              ), due AS (
                SELECT d.id FROM pick CROSS JOIN LATERAL (${
                messageQueue.pick({
                  where: sql`m.campaign_id = pick.id AND m.status = 'queued' AND m.lease_token IS NULL
                    AND m.subscriber_id > pick.position`,
                  orderBy: sql`m.subscriber_id`,
                  limit
                })
              }) d
              )`
            },
            lease: { token: newKey, until, set: sql`attempt_count = m.attempt_count + 1, updated_at = ${now}` },
            returning: sql`m.*`,
            answer: recipients
          })
          return yield* toBatch(fresh)
        }).pipe(Effect.orDie),

      settle: (key, outcomes, at) =>
        outcomes.length === 0 ? Effect.void : sql`
          WITH o AS (
            SELECT * FROM unnest(
              ${outcomes.map((o) => o.id)}::uuid[], ${outcomes.map((o) => o.status)}::text[],
              ${outcomes.map((o) => o.status === "sent" ? o.providerId : null)}::text[],
              ${outcomes.map((o) => o.subject ?? null)}::text[],
              ${outcomes.map((o) => o.status === "sent" ? null : o.detail)}::text[]
            ) AS o(id, status, provider_id, subject, detail)
          ), settled AS (
            UPDATE messages m
            SET status = o.status, provider_id = o.provider_id, subject = COALESCE(o.subject, m.subject), error = o.detail,
                lease_token = NULL, next_attempt_at = NULL, updated_at = ${at}
            FROM o
            WHERE m.id = o.id AND m.lease_token = ${key} AND m.status = 'queued'
            RETURNING m.id, m.organization_id, o.status, o.detail
          )
          INSERT INTO message_events (id, message_id, organization_id, type, occurred_at, detail)
          SELECT gen_random_uuid(), id, organization_id, status, ${at}, detail FROM settled`.pipe(
          Effect.asVoid,
          Effect.orDie
        ),

      postpone: (key, retryAt, error, at) =>
        sql.withTransaction(Effect.gen(function*() {
          const waiting = yield* messageQueue.retry({
            token: key,
            at: retryAt,
            where: queued,
            set: sql`error = ${error}, updated_at = ${at}`,
            returning: sql`m.id`
          })
          yield* insertEvent(waiting.map((row) => String(row.id)), { type: "retrying", occurredAt: at, detail: error })
        })).pipe(Effect.orDie),

      // Each message becomes a lease of its own, due at once: taken again one by one.
      unbatch: (key, at) =>
        messageQueue.update({ token: key, where: queued, set: sql`lease_token = m.id, next_attempt_at = ${at}, updated_at = ${at}` })
          .pipe(Effect.asVoid, Effect.orDie),

      requeueFailed: (campaignId, at) =>
        transaction(Effect.gen(function*() {
          const queued = yield* sql`
            UPDATE messages SET status = 'queued', error = NULL, attempt_count = 0, lease_token = NULL,
                   next_attempt_at = ${at}, updated_at = ${at}
            WHERE campaign_id = ${campaignId} AND status = 'failed'
            RETURNING id, organization_id`
          yield* recordEvents(queued, "queued", at, "the campaign was retried")
        })).pipe(Effect.orDie),

      failQueued: (campaignId, reason, at) =>
        transaction(Effect.gen(function*() {
          const failed = yield* sql`
            UPDATE messages SET status = 'failed', error = ${reason}, next_attempt_at = NULL, updated_at = ${at}
            WHERE campaign_id = ${campaignId} AND status = 'queued' AND lease_token IS NULL
            RETURNING id, organization_id`
          yield* recordEvents(failed, "failed", at, reason)
        })).pipe(Effect.orDie),

      withdrawCancelled: (limit) =>
        sql`
          DELETE FROM messages WHERE id IN (
            SELECT m.id FROM campaigns c JOIN messages m ON m.campaign_id = c.id
            WHERE c.status = 'cancelled' AND m.status = 'queued'
              AND (m.lease_token IS NULL OR m.next_attempt_at <= now())
            LIMIT ${limit}
          )
          RETURNING id`.pipe(Effect.map((rows) => rows.length), Effect.orDie),

      claimReport: (organizationId, key, at) =>
        sql`
          INSERT INTO provider_reports (organization_id, report_key, applied_at)
          SELECT id, ${key}, ${at} FROM organizations WHERE id = ${organizationId}
          ON CONFLICT (organization_id, report_key) DO NOTHING
          RETURNING organization_id`.pipe(Effect.map((rows) => rows.length === 1), Effect.orDie),

      recordReport: (id, report, next) =>
        sql.withTransaction(Effect.gen(function*() {
          const current = yield* sql`SELECT status, campaign_id FROM messages WHERE id = ${id} FOR UPDATE`.pipe(
            Effect.flatMap(decodeStatus)
          )
          if (Option.isNone(current)) return false
          // A campaign's email keeps the first time of each kind its chart counts, in the same statement.
          const first = current.value.campaignId !== null && activityEventTypes.includes(report.type)
            ? sql`, first AS (
              INSERT INTO message_first_events (message_id, type, campaign_id, occurred_at)
              SELECT message_id, ${report.type}, ${current.value.campaignId}, ${report.occurredAt} FROM inserted
              ON CONFLICT (message_id, type) DO UPDATE SET occurred_at = excluded.occurred_at
                WHERE message_first_events.occurred_at > excluded.occurred_at
            )`
            : sql``
          const inserted = yield* sql`
            WITH inserted AS (
              INSERT INTO message_events (id, message_id, organization_id, type, occurred_at, detail, provider_event_key)
              SELECT gen_random_uuid(), id, organization_id, ${report.type}, ${report.occurredAt}, ${report.detail},
                     ${report.key}
              FROM messages WHERE id = ${id}
              ON CONFLICT (provider_event_key) WHERE provider_event_key IS NOT NULL DO NOTHING
              RETURNING message_id
            )${first}
            SELECT message_id FROM inserted`
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
