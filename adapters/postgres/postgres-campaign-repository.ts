import * as SqlClient from "@effect/sql/SqlClient"
import type { Statement } from "@effect/sql/Statement"
import { type AudienceSelection, type CampaignFilter, CampaignRepository } from "@roster/application"
import {
  audienceStatuses,
  Campaign,
  campaignEnded,
  campaignMovesOf,
  CampaignId,
  type MessageKind,
  type OrganizationId,
  SubscriberId
} from "@roster/domain"
import { Effect, Layer, Option } from "effect"
import { transactional } from "./transactions.js"
import { makeWorkQueue } from "./work-queue.js"
import { decodeFirst, decodeRow, decodeRows, jsonb, type Row } from "./rows.js"
import { segmentMembers } from "./segment-predicate.js"

/** A campaign's columns, each named with `prefix`: the audience as the domain holds it. */
export const campaignColumns = (table: string, prefix = ""): string =>
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
    `json_build_object('tagIds', ${table}.tag_ids, 'excludeTagIds', ${table}.exclude_tag_ids, 'segmentId', ${table}.segment_id) AS ${prefix}audience`
  ).join(", ")

/** How many subscriber ids one row of a fixed audience holds. */
const AUDIENCE_PART = 1_000

/** Before every uuid: the place of an audience none of whose recipients was taken yet. */
const NO_POSITION = "00000000-0000-0000-0000-000000000000"

const decodeCampaign = decodeFirst(Campaign)
const decodeCampaigns = decodeRows(Campaign)

/**
 * Campaigns over PostgreSQL. A move is one conditional statement over the transition table's moves
 * for its action. The audience is fixed by the move that starts sending (its ids, in order, a
 * thousand to a row), and taken a chunk at a time after the last chunk's subscriber id.
 */
export const PostgresCampaignRepositoryLive = Layer.effect(
  CampaignRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    /** The caller's transaction when there is one (joined, no savepoint), else one of its own. */
    const transaction = transactional(sql)
    const columns = sql.literal(campaignColumns("campaigns"))
    const aliasedColumns = sql.literal(campaignColumns("c"))
    // An audience being taken is held by the transaction that takes its next part.
    const audienceQueue = makeWorkQueue(sql, { table: "campaign_audiences", alias: "a", key: ["campaign_id"] })

    /**
     * The audience's subscribers (alias `s`): one condition for counting them and for fixing them
     * when sending starts. A segment's are those its compiled filter selects, as its preview does.
     * One tag is compared as a value, so that its assignments are read in subscriber order.
     */
    const inAudience = (organizationId: OrganizationId, audience: AudienceSelection, kind: MessageKind): Statement<Row> =>
      sql`${
        audience.filter === null
          ? sql`s.organization_id = ${organizationId} AND s.erasure_requested_at IS NULL`
          : segmentMembers(sql, organizationId, audience.filter, audience.at)
      }
        AND s.status = ANY(${audienceStatuses(kind)}::text[])
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
     * off for the statement's transaction. Several tags' assignments are in no one order, and a
     * segment's filter may read anything: those are left to the planner.
     */
    const overAudience = <A, E, R>(audience: AudienceSelection, statement: Effect.Effect<A, E, R>) =>
      audience.filter !== null || audience.tagIds.length > 1 || audience.excludeTagIds.length > 1 ||
        audience.tagIds.length + audience.excludeTagIds.length === 0
        ? statement
        : sql.withTransaction(Effect.zipRight(sql`SET LOCAL enable_hashjoin = off`, statement))

    const matching = ({ organizationId, status }: CampaignFilter) =>
      sql`organization_id = ${organizationId} ${status === undefined ? sql`` : sql`AND status = ${status}`}`

    /** Fixes the audience of a campaign that starts sending, as it is now: once, whatever moves come later. */
    const fixAudience = (campaign: Campaign, at: Date, audience: AudienceSelection) =>
      Effect.gen(function*() {
        const fixing = yield* sql`
          INSERT INTO campaign_audiences (campaign_id, fixed_at) VALUES (${campaign.id}, ${at})
          ON CONFLICT (campaign_id) DO NOTHING
          RETURNING campaign_id`
        if (fixing.length === 0) return
        const { kind, organizationId } = campaign
        // The audience as it is now, in one statement: what becomes messages later is this.
        yield* overAudience(
          audience,
          sql`
            INSERT INTO campaign_audience_parts (campaign_id, last_id, subscriber_ids)
            SELECT ${campaign.id}, ids[cardinality(ids)], ids FROM (
              SELECT array_agg(id ORDER BY id) AS ids FROM (
                SELECT s.id, (row_number() OVER (ORDER BY s.id) - 1) / ${AUDIENCE_PART} AS part
                FROM subscribers s WHERE ${inAudience(organizationId, audience, kind)}
              ) members
              GROUP BY part
            ) parts`
        )
      })

    return CampaignRepository.of({
      insert: (campaign) =>
        sql`
          INSERT INTO campaigns (
            id, organization_id, name, kind, template_id, subject, html, text, tag_ids, exclude_tag_ids, segment_id, data,
            status, scheduled_at, started_at, finished_at, failure_reason, sandboxed, created_at, updated_at
          ) VALUES (
            ${campaign.id}, ${campaign.organizationId}, ${campaign.name}, ${campaign.kind}, ${campaign.templateId},
            ${campaign.subject}, ${campaign.html}, ${campaign.text}, ${campaign.audience.tagIds}::uuid[],
            ${campaign.audience.excludeTagIds}::uuid[], ${campaign.audience.segmentId}, ${jsonb(campaign.data)}::jsonb,
            ${campaign.status},
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

      save: (campaign, from) =>
        sql`
          UPDATE campaigns SET name = ${campaign.name}, kind = ${campaign.kind}, template_id = ${campaign.templateId},
                 subject = ${campaign.subject}, html = ${campaign.html}, text = ${campaign.text},
                 tag_ids = ${campaign.audience.tagIds}::uuid[], exclude_tag_ids = ${campaign.audience.excludeTagIds}::uuid[],
                 segment_id = ${campaign.audience.segmentId},
                 data = ${jsonb(campaign.data)}::jsonb, status = ${campaign.status}, scheduled_at = ${campaign.scheduledAt},
                 updated_at = ${campaign.updatedAt}
          WHERE id = ${campaign.id} AND organization_id = ${campaign.organizationId} AND status = ${from}
          RETURNING id`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie),

      transition: (id, action, changes) =>
        transaction(Effect.gen(function*() {
          const moves = campaignMovesOf(action)
          const { at, sendout, whenDone } = changes
          const moved = yield* sql`
            UPDATE campaigns c SET status = m.to_status, updated_at = ${at},
                   finished_at = CASE WHEN m.ends THEN ${at}::timestamptz END,
                   failure_reason = ${changes.failureReason ?? null}
                   ${changes.scheduledAt === undefined ? sql`` : sql`, scheduled_at = ${changes.scheduledAt}`}
                   ${changes.sandboxed === undefined ? sql`` : sql`, sandboxed = ${changes.sandboxed}`}
                   ${
            sendout === undefined
              ? sql``
              : sql`, sendout = ${jsonb(sendout)}::jsonb, started_at = COALESCE(c.started_at, ${at})`
          }
            FROM unnest(
              ${moves.map((move) => move.from)}::text[], ${moves.map((move) => move.to)}::text[],
              ${moves.map((move) => campaignEnded(move.to))}::boolean[]
            ) AS m(from_status, to_status, ends)
            WHERE c.id = ${id} AND c.status = m.from_status
              ${
            whenDone === undefined ? sql`` : sql`
              AND EXISTS (SELECT 1 FROM campaign_audiences a WHERE a.campaign_id = c.id AND a.complete)
              AND NOT EXISTS (SELECT 1 FROM messages q WHERE q.campaign_id = c.id AND q.status = 'queued')
              AND (SELECT count(*) FROM messages f WHERE f.campaign_id = c.id AND f.status = 'failed') = ${whenDone.failed}`
          }
            RETURNING ${aliasedColumns}`.pipe(Effect.flatMap(decodeCampaign))
          if (Option.isNone(moved)) return moved
          if (changes.sendout !== undefined) yield* fixAudience(moved.value, at, changes.audience)
          // A cancelled campaign's audience is taken no further: what was left of it goes.
          if (action === "cancel") yield* sql`DELETE FROM campaign_audience_parts WHERE campaign_id = ${id}`
          return moved
        })).pipe(Effect.orDie),

      countAudience: (organizationId, audience, kind) =>
        overAudience(
          audience,
          sql`SELECT count(*)::integer AS count FROM subscribers s WHERE ${inAudience(organizationId, audience, kind)}`
        ).pipe(
          Effect.map((rows) => Number(rows[0]?.count ?? 0)),
          Effect.orDie
        ),

      usingSegment: (organizationId, segmentId) =>
        sql`
          SELECT id FROM campaigns
          WHERE organization_id = ${organizationId} AND segment_id = ${segmentId}
            AND (status IN ('draft', 'scheduled') OR (status = 'failed' AND started_at IS NULL))
          ORDER BY created_at, id`.pipe(
          Effect.map((rows) => rows.map((row) => CampaignId.make(String(row.id)))),
          Effect.orDie
        ),

      dueScheduled: (now, limit) =>
        sql`
          SELECT ${columns} FROM campaigns WHERE status = 'scheduled' AND scheduled_at <= ${now}
          ORDER BY scheduled_at LIMIT ${limit}`.pipe(Effect.flatMap(decodeCampaigns), Effect.orDie),

      takeAudience: (limit) =>
        transaction(Effect.gen(function*() {
          const open = yield* audienceQueue.pick({
            columns: sql`a.cursor, c.sendout->>'from' AS from_header, ${aliasedColumns}`,
            join: sql`JOIN campaigns c ON c.id = a.campaign_id`,
            where: sql`NOT a.complete AND c.status = 'sending'`,
            orderBy: sql`a.fixed_at`,
            limit: 1
          })
          if (open.length === 0) return Option.none()
          const row = open[0]!
          const campaign = yield* decodeRow(Campaign)(row)
          const after = row.cursor === null ? NO_POSITION : String(row.cursor)
          // The next subscribers of the audience fixed at the start, from the few parts that hold them.
          const taken = yield* sql`
            SELECT u.id FROM (
              SELECT p.subscriber_ids FROM campaign_audience_parts p
              WHERE p.campaign_id = ${campaign.id} AND p.last_id > ${after}::uuid
              ORDER BY p.last_id
              LIMIT ${Math.ceil(limit / AUDIENCE_PART) + 1}
            ) p CROSS JOIN LATERAL unnest(p.subscriber_ids) AS u(id)
            WHERE u.id > ${after}::uuid
            ORDER BY u.id
            LIMIT ${limit}`
          const subscriberIds = taken.map((r) => SubscriberId.make(String(r.id)))
          const complete = subscriberIds.length < limit
          yield* sql`
            UPDATE campaign_audiences SET cursor = COALESCE(${subscriberIds.at(-1) ?? null}::uuid, cursor),
                   complete = ${complete}
            WHERE campaign_id = ${campaign.id}`
          if (complete) yield* sql`DELETE FROM campaign_audience_parts WHERE campaign_id = ${campaign.id}`
          return Option.some({ campaign, from: String(row.from_header), subscriberIds, complete })
        })).pipe(Effect.orDie),

      doneSending: (limit, id) =>
        sql`
          SELECT c.id FROM campaigns c
          WHERE c.status = 'sending' ${id === undefined ? sql`` : sql`AND c.id = ${id}`}
            AND EXISTS (SELECT 1 FROM campaign_audiences a WHERE a.campaign_id = c.id AND a.complete)
            AND NOT EXISTS (SELECT 1 FROM messages q WHERE q.campaign_id = c.id AND q.status = 'queued')
          LIMIT ${limit}`.pipe(Effect.map((rows) => rows.map((row) => CampaignId.make(String(row.id)))), Effect.orDie)
    })
  })
)
