import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type { Statement } from "@effect/sql/Statement"
import {
  type CampaignFilter,
  type CampaignRecipient,
  CampaignRepository,
  type LeasedCampaignBatch,
  type SendingCampaign
} from "@roster/application"
import {
  audienceStatuses,
  Campaign,
  type CampaignAudience,
  CampaignId,
  Message,
  MessageId,
  type MessageKind,
  type MessageStatus,
  OrganizationId,
  PlanTier,
  SubscriberId,
  SubscriberStatus,
  TemplateId
} from "@roster/domain"
import { Effect, Layer, Option, type ParseResult, Schema } from "effect"
import { decodeFirst, decodeRow, decodeRows, jsonb, type Row } from "./rows.js"

/** A campaign's columns, each named with `prefix`: the audience as the domain holds it. */
const campaignColumns = (table: string, prefix = "") =>
  [
    "id",
    "organization_id",
    "name",
    "kind",
    "template_id",
    "subject",
    "html",
    "text",
    "data",
    "status",
    "scheduled_at",
    "started_at",
    "finished_at",
    "failure_reason",
    "sandboxed",
    "created_at",
    "updated_at"
  ].map((column) => `${table}.${column} AS ${prefix}${column}`).concat(
    `json_build_object('tagIds', ${table}.tag_ids, 'excludeTagIds', ${table}.exclude_tag_ids) AS ${prefix}audience`
  ).join(", ")

/** How many subscriber ids one row of a fixed audience holds. */
const AUDIENCE_PART = 1_000

/** Before every uuid: the position of a campaign none of whose recipients was leased yet. */
const NO_POSITION = "00000000-0000-0000-0000-000000000000"

const decodeCampaign = decodeFirst(Campaign)
const decodeCampaigns = decodeRows(Campaign)
const Sendout = Schema.Struct({
  content: Schema.Struct({ subject: Schema.String, html: Schema.NullOr(Schema.String), text: Schema.NullOr(Schema.String) }),
  from: Schema.String,
  organizationName: Schema.String
})
const decodeCampaignRow = decodeRow(Campaign)
const decodeSendout = Schema.decodeUnknown(Sendout)
const tiers: ReadonlySet<string> = new Set(PlanTier.literals)
const subscriberStatuses: ReadonlySet<string> = new Set(SubscriberStatus.literals)

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
 * Campaigns over PostgreSQL. The audience is fixed by the statement that starts sending (its ids,
 * in order, a thousand to a row); recipients become messages one chunk per statement, after the
 * last chunk's subscriber id, and a batch is leased, with
 * its recipients and its campaign, in one statement: the claimer of a sending campaign makes one
 * round trip per batch, and two for its outcome.
 */
export const PostgresCampaignRepositoryLive = Layer.effect(
  CampaignRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(campaignColumns("campaigns"))
    const aliasedColumns = sql.literal(campaignColumns("c"))
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

    /**
     * The audience's subscribers (alias `s`): one condition for counting them and for fixing them
     * when sending starts. One tag is compared as a value, so that its assignments are read in
     * subscriber order.
     */
    const inAudience = (organizationId: OrganizationId, audience: CampaignAudience, kind: MessageKind): Statement<Row> =>
      sql`s.organization_id = ${organizationId}
        AND s.status = ANY(${audienceStatuses(kind)}::text[])
        AND s.erasure_requested_at IS NULL
        ${
        audience.tagIds.length === 0
          ? sql``
          : sql`AND s.id IN (SELECT st.subscriber_id FROM subscriber_tags st WHERE ${tagIn("st", audience.tagIds)})`
      }
        ${
        audience.excludeTagIds.length === 0 ? sql`` : sql`AND NOT EXISTS (
            SELECT 1 FROM subscriber_tags x WHERE x.subscriber_id = s.id AND ${tagIn("x", audience.excludeTagIds)}
          )`
      }`

    const tagIn = (alias: string, ids: ReadonlyArray<string>) =>
      ids.length === 1 ? sql`${sql(alias)}.tag_id = ${ids[0]!}` : sql`${sql(alias)}.tag_id = ANY(${ids}::uuid[])`

    /**
     * Runs a statement over an audience. The subscribers of an audience of one tag (and at most one
     * excluded) and that tag's assignments are both at hand in subscriber order
     * (`subscribers_audience_idx`, `subscriber_tags_tag_idx`), and merging them is twice as fast
     * as hashing them over a large organization; the planner costs it higher, so hashing is turned
     * off for the statement's transaction. Several tags' assignments are in no one order: those
     * are left to the planner.
     */
    const overAudience = <A, E, R>(audience: CampaignAudience, statement: Effect.Effect<A, E, R>) =>
      audience.tagIds.length > 1 || audience.excludeTagIds.length > 1 ||
        audience.tagIds.length + audience.excludeTagIds.length === 0
        ? statement
        : sql.withTransaction(Effect.zipRight(sql`SET LOCAL enable_hashjoin = off`, statement))

    const matching = ({ organizationId, status }: CampaignFilter) =>
      sql`organization_id = ${organizationId} ${status === undefined ? sql`` : sql`AND status = ${status}`}`

    /** The events of messages just changed: one row per message, in the same statement's wake. */
    const recordEvents = (rows: ReadonlyArray<Row>, type: string, at: Date, detail: string | null) =>
      rows.length === 0 ? Effect.void : sql`
        INSERT INTO message_events (id, message_id, organization_id, type, occurred_at, detail)
        SELECT gen_random_uuid(), id, organization_id, ${type}, ${at}, ${detail}
        FROM unnest(${rows.map((r) => String(r.id))}::uuid[], ${rows.map((r) => String(r.organization_id))}::uuid[])
          AS m(id, organization_id)`.pipe(Effect.asVoid)

    /** The leased batch's recipients, with their subscribers as they are now, and their organization's plan. */
    const leasedWith = (ctes: Statement<Row>, lease: Statement<Row>) =>
      sql`
        WITH ${ctes}, leased AS (${lease})
        SELECT leased.lease_token AS key, leased.id, leased.organization_id, leased.subscriber_id, leased.template_id,
               leased.campaign_id, leased.kind, leased.from_header, leased.subject, leased.error, leased.attempt_count,
               leased.created_at, leased.updated_at, s.email AS to,
               s.status AS s_status, s.first_name AS s_first_name, s.last_name AS s_last_name, s.metadata AS s_metadata,
               s.preference_token_version AS s_token_version, s.erasure_requested_at IS NOT NULL AS s_erasure_requested,
               COALESCE((
                 SELECT array_agg(t.name ORDER BY t.name) FROM subscriber_tags st JOIN tags t ON t.id = st.tag_id
                 WHERE st.subscriber_id = s.id
               ), '{}') AS s_tag_names,
               o.tier
        FROM leased
        JOIN subscribers s ON s.id = leased.subscriber_id
        JOIN organizations o ON o.id = leased.organization_id
        ORDER BY leased.subscriber_id`

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

    const finishedAt = (to: string, at: Date) => ["sent", "failed", "cancelled"].includes(to) ? at : null

    return CampaignRepository.of({
      insert: (campaign) =>
        sql`
          INSERT INTO campaigns (
            id, organization_id, name, kind, template_id, subject, html, text, tag_ids, exclude_tag_ids, data, status,
            scheduled_at, started_at, finished_at, failure_reason, sandboxed, created_at, updated_at
          ) VALUES (
            ${campaign.id}, ${campaign.organizationId}, ${campaign.name}, ${campaign.kind}, ${campaign.templateId},
            ${campaign.subject}, ${campaign.html}, ${campaign.text}, ${campaign.audience.tagIds}::uuid[],
            ${campaign.audience.excludeTagIds}::uuid[], ${jsonb(campaign.data)}::jsonb, ${campaign.status},
            ${campaign.scheduledAt}, ${campaign.startedAt}, ${campaign.finishedAt}, ${campaign.failureReason},
            ${campaign.sandboxed}, ${campaign.createdAt}, ${campaign.updatedAt}
          )`.pipe(Effect.asVoid, Effect.orDie),

      findById: (organizationId, id) =>
        sql`SELECT ${columns} FROM campaigns WHERE id = ${id} AND organization_id = ${organizationId}`.pipe(
          Effect.flatMap(decodeCampaign),
          Effect.orDie
        ),

      list: (query) =>
        sql`
          SELECT ${columns} FROM campaigns
          WHERE ${matching(query)}
            ${query.after === undefined ? sql`` : sql`AND (created_at, id) < (${new Date(query.after.value)}, ${query.after.id})`}
          ORDER BY created_at DESC, id DESC
          LIMIT ${query.limit} ${query.offset === undefined ? sql`` : sql`OFFSET ${query.offset}`}`.pipe(
          Effect.flatMap(decodeCampaigns),
          Effect.orDie
        ),

      count: (filter) =>
        sql`SELECT count(*)::integer AS count FROM campaigns WHERE ${matching(filter)}`.pipe(
          Effect.map((rows) => Number(rows[0]?.count ?? 0)),
          Effect.orDie
        ),

      stats: (ids) =>
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

      save: (campaign, from) =>
        sql`
          UPDATE campaigns SET name = ${campaign.name}, kind = ${campaign.kind}, template_id = ${campaign.templateId},
                 subject = ${campaign.subject}, html = ${campaign.html}, text = ${campaign.text},
                 tag_ids = ${campaign.audience.tagIds}::uuid[], exclude_tag_ids = ${campaign.audience.excludeTagIds}::uuid[],
                 data = ${jsonb(campaign.data)}::jsonb, status = ${campaign.status}, scheduled_at = ${campaign.scheduledAt},
                 updated_at = ${campaign.updatedAt}
          WHERE id = ${campaign.id} AND organization_id = ${campaign.organizationId} AND status = ANY(${from}::text[])
          RETURNING id`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie),

      transition: (id, from, to, changes) =>
        sql`
          UPDATE campaigns SET status = ${to}, updated_at = ${changes.at},
                 finished_at = ${finishedAt(to, changes.at)},
                 failure_reason = ${changes.failureReason ?? null}
                 ${changes.scheduledAt === undefined ? sql`` : sql`, scheduled_at = ${changes.scheduledAt}`}
                 ${changes.sandboxed === undefined ? sql`` : sql`, sandboxed = ${changes.sandboxed}`}
          WHERE id = ${id} AND status = ANY(${from}::text[])
          RETURNING ${columns}`.pipe(
          Effect.flatMap(decodeCampaign),
          // A cancelled campaign's audience is taken no further: what was left of it goes.
          Effect.tap((moved) =>
            Option.isSome(moved) && to === "cancelled"
              ? sql`DELETE FROM campaign_audience_parts WHERE campaign_id = ${id}`
              : Effect.void
          ),
          Effect.orDie
        ),

      start: (id, from, sendout, at, sandboxed) =>
        sql.withTransaction(Effect.gen(function*() {
          const started = yield* sql`
            UPDATE campaigns SET status = 'sending', started_at = COALESCE(started_at, ${at}),
                   sendout = ${jsonb(sendout)}::jsonb, updated_at = ${at}
                   ${sandboxed === undefined ? sql`` : sql`, sandboxed = ${sandboxed}`}
            WHERE id = ${id} AND status = ANY(${from}::text[])
            RETURNING ${columns}`.pipe(Effect.flatMap(decodeCampaign))
          if (Option.isNone(started)) return started
          const fixing = yield* sql`
            INSERT INTO campaign_audiences (campaign_id, fixed_at) VALUES (${id}, ${at})
            ON CONFLICT (campaign_id) DO NOTHING
            RETURNING campaign_id`
          if (fixing.length > 0) {
            const { audience, kind, organizationId } = started.value
            // The audience as it is now, in one statement: what becomes messages later is this.
            yield* overAudience(
              audience,
              sql`
                INSERT INTO campaign_audience_parts (campaign_id, last_id, subscriber_ids)
                SELECT ${id}, ids[cardinality(ids)], ids FROM (
                  SELECT array_agg(id ORDER BY id) AS ids FROM (
                    SELECT s.id, (row_number() OVER (ORDER BY s.id) - 1) / ${AUDIENCE_PART} AS part
                    FROM subscribers s WHERE ${inAudience(organizationId, audience, kind)}
                  ) members
                  GROUP BY part
                ) parts`
            )
          }
          return started
        })).pipe(Effect.orDie),

      retry: (id, at) =>
        sql.withTransaction(Effect.gen(function*() {
          const sending = yield* sql`
            UPDATE campaigns SET status = 'sending', failure_reason = NULL, finished_at = NULL, updated_at = ${at}
            WHERE id = ${id} AND status = 'failed'
            RETURNING ${columns}`.pipe(Effect.flatMap(decodeCampaign))
          if (Option.isNone(sending)) return sending
          const queued = yield* sql`
            UPDATE messages SET status = 'queued', error = NULL, attempt_count = 0, lease_token = NULL,
                   next_attempt_at = ${at}, updated_at = ${at}
            WHERE campaign_id = ${id} AND status = 'failed'
            RETURNING id, organization_id`
          yield* recordEvents(queued, "queued", at, "the campaign was retried")
          return sending
        })).pipe(Effect.orDie),

      countAudience: (organizationId, audience, kind) =>
        overAudience(
          audience,
          sql`SELECT count(*)::integer AS count FROM subscribers s WHERE ${inAudience(organizationId, audience, kind)}`
        ).pipe(
          Effect.map((rows) => Number(rows[0]?.count ?? 0)),
          Effect.orDie
        ),

      dueScheduled: (now, limit) =>
        sql`
          SELECT ${columns} FROM campaigns WHERE status = 'scheduled' AND scheduled_at <= ${now}
          ORDER BY scheduled_at LIMIT ${limit}`.pipe(Effect.flatMap(decodeCampaigns), Effect.orDie),

      fixAudience: (limit, at) =>
        sql.withTransaction(Effect.gen(function*() {
          const open = yield* sql`
            SELECT a.cursor, c.sendout->>'from' AS from_header, ${aliasedColumns}
            FROM campaign_audiences a JOIN campaigns c ON c.id = a.campaign_id
            WHERE NOT a.complete AND c.status = 'sending'
            ORDER BY a.fixed_at
            LIMIT 1
            FOR UPDATE OF a SKIP LOCKED`
          if (open.length === 0) return Option.none()
          const row = open[0]!
          const campaign = yield* decodeRow(Campaign)(row)
          const after = row.cursor === null ? NO_POSITION : String(row.cursor)
          // The next subscribers of the audience fixed at the start, from the few parts that hold them.
          const taken = yield* sql`
            WITH chosen AS (
              SELECT u.id FROM (
                SELECT p.subscriber_ids FROM campaign_audience_parts p
                WHERE p.campaign_id = ${campaign.id} AND p.last_id > ${after}::uuid
                ORDER BY p.last_id
                LIMIT ${Math.ceil(limit / AUDIENCE_PART) + 1}
              ) p CROSS JOIN LATERAL unnest(p.subscriber_ids) AS u(id)
              WHERE u.id > ${after}::uuid
              ORDER BY u.id
              LIMIT ${limit}
            ), made AS (
              INSERT INTO messages (
                id, organization_id, subscriber_id, template_id, campaign_id, kind, to_address, from_header, subject,
                headers, status, attempt_count, next_attempt_at, created_at, updated_at
              )
              SELECT gen_random_uuid(), ${campaign.organizationId}, s.id, ${campaign.templateId}, ${campaign.id},
                     ${campaign.kind}, s.email, ${String(row.from_header)}, '', '{}', 'queued', 0, ${at}, ${at}, ${at}
              FROM chosen JOIN subscribers s ON s.id = chosen.id
              ON CONFLICT (campaign_id, subscriber_id) WHERE campaign_id IS NOT NULL DO NOTHING
              RETURNING 1
            )
            SELECT (SELECT id FROM chosen ORDER BY id DESC LIMIT 1) AS last,
                   (SELECT count(*) FROM chosen)::integer AS taken,
                   (SELECT count(*) FROM made)::integer AS added`
          const { added, last } = taken[0]!
          const complete = Number(taken[0]!.taken) < limit
          yield* sql`
            UPDATE campaign_audiences SET cursor = COALESCE(${last === null ? null : String(last)}::uuid, cursor),
                   complete = ${complete}
            WHERE campaign_id = ${campaign.id}`
          if (complete) yield* sql`DELETE FROM campaign_audience_parts WHERE campaign_id = ${campaign.id}`
          return Option.some({ id: campaign.id, added: Number(added), complete })
        })).pipe(Effect.orDie),

      anyDue: (now) =>
        sql`
          SELECT EXISTS (
            SELECT 1 FROM campaigns c
            WHERE c.status = 'sending' AND EXISTS (
              SELECT 1 FROM messages q
              WHERE q.campaign_id = c.id AND q.status = 'queued' AND (q.lease_token IS NULL OR q.next_attempt_at <= ${now})
            )
          ) AS due`.pipe(Effect.map((rows) => rows[0]?.due === true), Effect.orDie),

      leaseDue: ({ after, leaseMs, limit, newKey, now, overdue = true, positions = new Map() }) =>
        Effect.gen(function*() {
          const until = new Date(now.getTime() + leaseMs)
          if (overdue) {
            const again = yield* leasedWith(
              sql`head AS (
                SELECT m.lease_token FROM messages m
                WHERE m.status = 'queued' AND m.lease_token IS NOT NULL AND m.campaign_id IS NOT NULL
                  AND m.next_attempt_at <= ${now}
                  AND EXISTS (SELECT 1 FROM campaigns c WHERE c.id = m.campaign_id AND c.status = 'sending')
                ORDER BY m.next_attempt_at, m.id
                LIMIT 1
                FOR UPDATE OF m SKIP LOCKED
              )`,
              sql`
              UPDATE messages m
              SET next_attempt_at = ${until}, attempt_count = m.attempt_count + 1, updated_at = ${now}
              FROM head
              WHERE m.lease_token = head.lease_token AND m.status = 'queued' AND m.next_attempt_at <= ${now}
              RETURNING m.*`
            )
            if (again.length > 0) return yield* toBatch(again)
          }
          // A campaign's recipients are leased in subscriber order, from where the caller's last batch of
          // it ended: the index is read from there on, not across every email settled before it. The
          // look for a campaign and the lease are subqueries of their own, so that the position bounds
          // the index scan instead of filtering its rows.
          const fresh = yield* leasedWith(
            sql`position AS (
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
              SELECT d.id FROM pick CROSS JOIN LATERAL (
                SELECT m.id FROM messages m
                WHERE m.campaign_id = pick.id AND m.status = 'queued' AND m.lease_token IS NULL
                  AND m.subscriber_id > pick.position
                ORDER BY m.subscriber_id
                LIMIT ${limit}
                FOR UPDATE OF m SKIP LOCKED
              ) d
            )`,
            sql`
            UPDATE messages m
            SET lease_token = ${newKey}, next_attempt_at = ${until}, attempt_count = m.attempt_count + 1, updated_at = ${now}
            FROM due
            WHERE m.id = due.id
            RETURNING m.*`
          )
          return yield* toBatch(fresh)
        }).pipe(Effect.orDie),

      settle: (key, outcomes, at) =>
        outcomes.length === 0 ? Effect.void : sql`
          WITH o AS (
            SELECT * FROM unnest(
              ${outcomes.map((o) => o.id)}::uuid[], ${outcomes.map((o) => o.status)}::text[],
              ${outcomes.map((o) => o.status === "sent" ? o.providerId : null)}::text[],
              ${outcomes.map((o) => o.subject)}::text[],
              ${outcomes.map((o) => o.status === "sent" ? null : o.detail)}::text[]
            ) AS o(id, status, provider_id, subject, detail)
          ), settled AS (
            UPDATE messages m
            SET status = o.status, provider_id = o.provider_id, subject = o.subject, error = o.detail,
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

      stop: (id, reason, at) =>
        sql.withTransaction(Effect.gen(function*() {
          const stopped = yield* sql`
            UPDATE campaigns SET status = 'failed', failure_reason = ${reason}, finished_at = ${at}, updated_at = ${at}
            WHERE id = ${id} AND status = 'sending'
            RETURNING id`
          if (stopped.length === 0) return
          const failed = yield* sql`
            UPDATE messages SET status = 'failed', error = ${reason}, next_attempt_at = NULL, updated_at = ${at}
            WHERE campaign_id = ${id} AND status = 'queued' AND lease_token IS NULL
            RETURNING id, organization_id`
          yield* recordEvents(failed, "failed", at, reason)
        })).pipe(Effect.orDie),

      finishIfDone: (id, at, failedReason) =>
        sql.withTransaction(Effect.gen(function*() {
          const done = yield* sql`
            SELECT 1 FROM campaigns c
            WHERE c.id = ${id} AND c.status = 'sending'
              AND EXISTS (SELECT 1 FROM campaign_audiences a WHERE a.campaign_id = c.id AND a.complete)
              AND NOT EXISTS (SELECT 1 FROM messages q WHERE q.campaign_id = c.id AND q.status = 'queued')
            FOR UPDATE OF c`
          if (done.length === 0) return Option.none()
          const counted = yield* sql`
            SELECT count(*)::integer AS count FROM messages WHERE campaign_id = ${id} AND status = 'failed'`
          const failed = Number(counted[0]?.count ?? 0)
          return yield* sql`
            UPDATE campaigns SET status = ${failed > 0 ? "failed" : "sent"}, finished_at = ${at}, updated_at = ${at},
                   failure_reason = ${failed > 0 ? failedReason(failed) : null}
            WHERE id = ${id}
            RETURNING ${columns}`.pipe(Effect.flatMap(decodeCampaign))
        })).pipe(Effect.orDie),

      doneSending: (limit) =>
        sql`
          SELECT c.id FROM campaigns c
          WHERE c.status = 'sending'
            AND EXISTS (SELECT 1 FROM campaign_audiences a WHERE a.campaign_id = c.id AND a.complete)
            AND NOT EXISTS (SELECT 1 FROM messages q WHERE q.campaign_id = c.id AND q.status = 'queued')
          LIMIT ${limit}`.pipe(Effect.map((rows) => rows.map((row) => CampaignId.make(String(row.id)))), Effect.orDie),

      withdrawCancelled: (limit) =>
        sql`
          DELETE FROM messages WHERE id IN (
            SELECT m.id FROM campaigns c JOIN messages m ON m.campaign_id = c.id
            WHERE c.status = 'cancelled' AND m.status = 'queued'
              AND (m.lease_token IS NULL OR m.next_attempt_at <= now())
            LIMIT ${limit}
          )
          RETURNING id`.pipe(Effect.map((rows) => rows.length), Effect.orDie)
    })
  })
)
