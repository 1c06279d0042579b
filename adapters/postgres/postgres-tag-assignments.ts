import * as SqlClient from "@effect/sql/SqlClient"
import { TagAssignments } from "@roster/application"
import { SubscriberId, Tag, TagId, type TagSubscription } from "@roster/domain"
import { Array, Effect, Layer, Schema } from "effect"
import { selectList, tagColumns } from "./columns.js"
import { decodeRow, decodeRows } from "./rows.js"
import { adjustTagCounts, detachAllTagsOf } from "./tag-counts.js"
import { transactional } from "./transactions.js"

const decodeTagIds = decodeRows(Schema.Struct({ tagId: TagId }))
const decodeCarriers = decodeRows(Schema.Struct({ id: SubscriberId, email: Schema.String }))
const decodeTag = decodeRow(Tag)

export const PostgresTagAssignmentsLive = Layer.effect(
  TagAssignments,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const inTransaction = transactional(sql)
    const tagList = selectList(sql, tagColumns, { from: "t" })

    return TagAssignments.of({
      attach: (organizationId, subscriberId, tagIds, at) =>
        tagIds.length === 0 ? Effect.succeed([]) : inTransaction(Effect.gen(function*() {
          // Only tags of the subscriber's organization, and only a subscriber of this organization.
          const inserted = yield* sql`
            INSERT INTO subscriber_tags (subscriber_id, tag_id, subscribed_at)
            SELECT s.id, t.id, ${at}::timestamptz
            FROM subscribers s JOIN tags t ON t.organization_id = s.organization_id
            WHERE s.organization_id = ${organizationId} AND s.id = ${subscriberId} AND t.id = ANY(${tagIds}::uuid[])
            ON CONFLICT (subscriber_id, tag_id) DO NOTHING
            RETURNING tag_id`.pipe(Effect.flatMap(decodeTagIds))
          const added = new Set<string>(inserted.map((row) => row.tagId))
          yield* adjustTagCounts(sql, [...added], 1)
          return Array.dedupe(tagIds).filter((id) => added.has(id))
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
