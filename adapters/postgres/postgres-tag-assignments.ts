import * as SqlClient from "@effect/sql/SqlClient"
import { TagAssignments } from "@roster/application"
import { SubscriberId, Tag, type TagSubscription } from "@roster/domain"
import { Array, Effect, Layer, Option, Schema } from "effect"
import { selectList, tagColumns } from "./columns.js"
import { decodeRow, decodeRows } from "./rows.js"
import { adjustTagCounts, detachAllTagsOf } from "./tag-counts.js"
import { transactional } from "./transactions.js"

const decodeCarriers = decodeRows(Schema.Struct({ id: SubscriberId, email: Schema.String }))
const decodeTag = decodeRow(Tag)

export const PostgresTagAssignmentsLive = Layer.effect(
  TagAssignments,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const inTransaction = transactional(sql)
    const tagList = selectList(sql, tagColumns, { from: "t" })

    return TagAssignments.of({
      attach: (organizationId, subscriberId, tagIds, at, max) =>
        tagIds.length === 0 ? Effect.succeed(Option.some([])) : inTransaction(Effect.gen(function*() {
          // Only tags of the subscriber's organization, and only a subscriber of this organization;
          // under a limit, only if the new ones fit beside those carried (`mayCarry` of
          // domain/limits.ts), counted in the same statement.
          const rows = yield* sql<{ readonly tag_id: string | null; readonly room: boolean }>`
            WITH fresh AS (
              SELECT s.id AS subscriber_id, t.id AS tag_id
              FROM subscribers s JOIN tags t ON t.organization_id = s.organization_id
              WHERE s.organization_id = ${organizationId} AND s.id = ${subscriberId} AND t.id = ANY(${tagIds}::uuid[])
                AND NOT EXISTS (SELECT 1 FROM subscriber_tags x WHERE x.subscriber_id = s.id AND x.tag_id = t.id)
            ), room AS (
              SELECT ${
            max === null
              ? sql`true`
              : sql`(SELECT count(*) FROM fresh) = 0
                OR (SELECT count(*) FROM subscriber_tags WHERE subscriber_id = ${subscriberId}) + (SELECT count(*) FROM fresh) <= ${max}`
          } AS room
            ), inserted AS (
              INSERT INTO subscriber_tags (subscriber_id, tag_id, subscribed_at)
              SELECT fresh.subscriber_id, fresh.tag_id, ${at}::timestamptz FROM fresh, room WHERE room.room
              ON CONFLICT (subscriber_id, tag_id) DO NOTHING
              RETURNING tag_id
            )
            SELECT inserted.tag_id, room.room FROM room LEFT JOIN inserted ON true`
          if (rows[0]?.room !== true) return Option.none()
          const added = new Set<string>(rows.flatMap((row) => row.tag_id === null ? [] : [row.tag_id]))
          yield* adjustTagCounts(sql, [...added], 1)
          return Option.some(Array.dedupe(tagIds).filter((id) => added.has(id)))
        })).pipe(Effect.orDie),

      detach: (organizationId, subscriberId, tagId) =>
        sql`
          WITH removed AS (
            DELETE FROM subscriber_tags st USING subscribers s
            WHERE st.subscriber_id = ${subscriberId} AND st.tag_id = ${tagId}
              AND s.id = st.subscriber_id AND s.organization_id = ${organizationId}
            RETURNING st.tag_id
          )
          UPDATE tags SET subscriber_count = subscriber_count - 1
          WHERE id IN (SELECT tag_id FROM removed)
          RETURNING id`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie),

      detachAllFromSubscriber: (organizationId, subscriberId) =>
        inTransaction(detachAllTagsOf(sql, organizationId, subscriberId)).pipe(Effect.orDie),

      detachAllFromTag: (organizationId, tagId) =>
        sql`
          WITH removed AS (
            DELETE FROM subscriber_tags st USING tags t, subscribers s
            WHERE st.tag_id = ${tagId} AND t.id = st.tag_id AND t.organization_id = ${organizationId}
              AND s.id = st.subscriber_id
            RETURNING s.id, s.email
          ), counted AS (
            UPDATE tags SET subscriber_count = subscriber_count - (SELECT count(*) FROM removed)
            WHERE id = ${tagId} AND organization_id = ${organizationId}
          )
          SELECT id, email FROM removed`.pipe(Effect.flatMap(decodeCarriers), Effect.orDie),

      offeredTo: (organizationId, subscriberId, limit) =>
        sql`
          SELECT st.subscribed_at, ${tagList}
          FROM tags t LEFT JOIN subscriber_tags st ON st.tag_id = t.id AND st.subscriber_id = ${subscriberId}
          WHERE t.organization_id = ${organizationId} AND t.visibility = 'public'
          ORDER BY t.name_key, t.id
          LIMIT ${limit}`.pipe(
          Effect.flatMap((rows) =>
            Effect.forEach(rows, (row) =>
              Effect.map(decodeTag(row), (tag) => ({ tag, subscribedAt: (row.subscribed_at as Date | null) ?? null })))
          ),
          Effect.orDie
        ),

      tagsOf: (organizationId, subscriberIds) =>
        subscriberIds.length === 0 ? Effect.succeed(new Map()) : sql`
          SELECT st.subscriber_id, st.subscribed_at, ${tagList}
          FROM subscriber_tags st
            JOIN subscribers s ON s.id = st.subscriber_id
            JOIN tags t ON t.id = st.tag_id
          WHERE s.organization_id = ${organizationId} AND st.subscriber_id = ANY(${subscriberIds}::uuid[])
          ORDER BY st.subscriber_id, st.subscribed_at, t.id`.pipe(
          // Many rows name the same few tags: each tag is decoded once; the rest of a row is
          // what the database was given (a subscriber's id and a time).
          Effect.flatMap((rows) =>
            Effect.gen(function*() {
              const tags = new Map<unknown, Tag>()
              const bySubscriber = new Map<SubscriberId, Array<TagSubscription>>()
              for (const row of rows) {
                let tag = tags.get(row.id)
                if (tag === undefined) {
                  tag = yield* decodeTag(row)
                  tags.set(row.id, tag)
                }
                const subscriberId = row.subscriber_id as SubscriberId
                const subscription: TagSubscription = { tag, subscribedAt: row.subscribed_at as Date }
                const held = bySubscriber.get(subscriberId)
                if (held === undefined) bySubscriber.set(subscriberId, [subscription])
                else held.push(subscription)
              }
              return bySubscriber
            })
          ),
          Effect.orDie
        )
    })
  })
)
