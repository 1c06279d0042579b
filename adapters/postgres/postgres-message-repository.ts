import * as SqlClient from "@effect/sql/SqlClient"
import type { Fragment } from "@effect/sql/Statement"
import { activityEventTypes, type CampaignActivity, type MessageFilter, MessageRepository } from "@roster/application"
import { CampaignId, Message, MessageEvent, MessageEventType, type MessageId, type MessageStatus, OrganizationId } from "@roster/domain"
import { Effect, Layer, Option, Schema } from "effect"
import { decodeFirst, decodeRows } from "./rows.js"

/** The columns a {@link Message} is read from; `to` and `from` are named for the domain value. */
export const MESSAGE_COLUMNS = `id, organization_id, subscriber_id, template_id, campaign_id, kind, to_address AS "to", from_header AS "from",
  subject, html, text, headers, status, provider_id, error, attempt_count, created_at, updated_at`

const decodeMessage = decodeFirst(Message)
const decodeMessages = decodeRows(Message)
const decodeEvents = decodeRows(MessageEvent)
const decodeTimeline = decodeRows(Schema.Struct({ bucket: Schema.Number, type: MessageEventType, count: Schema.Number }))
const decodeUnsubscribed = decodeFirst(Schema.Struct({ count: Schema.Number }))

const decodeOwner = decodeFirst(Schema.Struct({ organizationId: OrganizationId }))

/** Messages and their history, read; the outgoing mail queue writes them. */
export const PostgresMessageRepositoryLive = Layer.effect(
  MessageRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(MESSAGE_COLUMNS)

    /**
     * The events of the messages whose id matches: the creation of a single send (its status as
     * made, at its creation time, and why it was held, which a held message keeps), first among
     * events of the same time, then the rows of what happened since.
     */
    const historiesOf = (ids: Fragment) =>
      sql`
        SELECT id AS message_id, created_as AS type, created_at AS occurred_at,
               CASE WHEN created_as = 'queued' THEN NULL ELSE error END AS detail, false AS after_creation, NULL::uuid AS id
        FROM messages WHERE id ${ids} AND created_as IS NOT NULL
        UNION ALL
        SELECT message_id, type, occurred_at, detail, true, id FROM message_events WHERE message_id ${ids}`

    const matching = ({ organizationId, status, subscriberId }: MessageFilter) =>
      sql`organization_id = ${organizationId}
        ${subscriberId === undefined ? sql`` : sql`AND subscriber_id = ${subscriberId}`}
        ${status === undefined ? sql`` : sql`AND status = ${status}`}`

    return MessageRepository.of({
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
        sql`${historiesOf(sql`= ${id}`)} ORDER BY occurred_at, after_creation, id`.pipe(
          Effect.flatMap(decodeEvents),
          Effect.orDie
        ),

      histories: (ids) =>
        ids.length === 0
          ? Effect.succeed(new Map())
          : sql`${historiesOf(sql`= ANY(${ids}::uuid[])`)} ORDER BY message_id, occurred_at, after_creation, id`.pipe(
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

      campaignStats: (ids) =>
        ids.length === 0 ? Effect.succeed(new Map()) : sql`
          SELECT campaign_id, status, count(*)::integer AS count FROM messages
          WHERE campaign_id = ANY(${ids}::uuid[])
          GROUP BY campaign_id, status`.pipe(
          Effect.map((rows) => {
            const byCampaign = new Map<CampaignId, Partial<Record<MessageStatus, number>>>()
            for (const row of rows) {
              const id = CampaignId.make(String(row.campaign_id))
              byCampaign.set(id, { ...byCampaign.get(id), [String(row.status)]: Number(row.count) })
            }
            return byCampaign as ReadonlyMap<CampaignId, Partial<Record<MessageStatus, number>>>
          }),
          Effect.orDie
        ),

      // One statement. The chart counts the first time each email had each kind of event, kept per
      // email as its reports come (message_first_events): one walk of the campaign's part of the
      // index, binned in whole steps from the start, then clamped to the window. The unsubscribed
      // are looked for among the organization's unsubscribed subscribers, each by its one email of
      // the campaign, or the other way round where the campaign is the smaller.
      // The chart and the unsubscribed count are two statements read side by side: on a campaign
      // of 100,000 emails each walks an index of its own for tens of milliseconds.
      campaignActivity: (id, window) =>
        Effect.all([
          sql`
            SELECT LEAST(GREATEST(floor(extract(epoch FROM (at - ${window.since}::timestamptz)) * 1000 / ${window.stepMs}), 0),
                     ${window.buckets - 1})::integer AS bucket,
                   type, sum(count)::integer AS count
            FROM (
              SELECT date_bin(${window.stepMs} * interval '1 millisecond', occurred_at, ${window.since}::timestamptz) AS at,
                     type, count(*) AS count
              FROM message_first_events
              WHERE campaign_id = ${id} AND type = ANY(${activityEventTypes}::text[])
              GROUP BY 1, 2
            ) bins
            GROUP BY 1, 2
            ORDER BY 1, 2`.pipe(Effect.flatMap(decodeTimeline)),
          sql`
            SELECT count(*)::integer AS count
            FROM messages m JOIN subscribers s ON s.id = m.subscriber_id
            WHERE m.campaign_id = ${id}
              AND s.organization_id = (SELECT organization_id FROM campaigns WHERE id = ${id})
              AND m.status IN ('sent', 'delivered', 'opened', 'clicked', 'bounced', 'complained')
              AND s.status = 'unsubscribed' AND s.updated_at >= m.created_at`.pipe(Effect.flatMap(decodeUnsubscribed))
        ], { concurrency: 2 }).pipe(
          Effect.map(([timeline, unsubscribed]): CampaignActivity => ({
            timeline,
            unsubscribed: Option.match(unsubscribed, { onNone: () => 0, onSome: (row) => row.count })
          })),
          Effect.orDie
        ),

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

    })
  })
)
