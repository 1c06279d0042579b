import type * as SqlClient from "@effect/sql/SqlClient"
import { type OrganizationId, type SubscriberId, TagId } from "@roster/domain"
import { Effect, Schema } from "effect"
import { decodeRows } from "./rows.js"

const decodeTagIds = decodeRows(Schema.Struct({ tagId: TagId }))

/**
 * Adds `by` to the subscriber count of each tag. The tags are locked in ascending id order, so
 * that two transactions changing the counts of the same tags never wait on each other in a cycle.
 */
export const adjustTagCounts = (sql: SqlClient.SqlClient, tagIds: ReadonlyArray<string>, by: number) =>
  tagIds.length === 0 ? Effect.void : sql`
    UPDATE tags SET subscriber_count = tags.subscriber_count + ${by}
    FROM (SELECT id FROM tags WHERE id = ANY(${tagIds}::uuid[]) ORDER BY id FOR NO KEY UPDATE) AS locked
    WHERE tags.id = locked.id`.pipe(Effect.asVoid)

/**
 * Detaches every tag of a subscriber of this organization and lowers those tags' counts; the tags
 * that were attached. Two statements: run it inside a transaction.
 */
export const detachAllTagsOf = (sql: SqlClient.SqlClient, organizationId: OrganizationId, subscriberId: SubscriberId) =>
  Effect.gen(function*() {
    const removed = yield* sql`
      DELETE FROM subscriber_tags st USING subscribers s
      WHERE st.subscriber_id = ${subscriberId} AND s.id = st.subscriber_id AND s.organization_id = ${organizationId}
      RETURNING st.tag_id`.pipe(Effect.flatMap(decodeTagIds))
    const tagIds = removed.map((row) => row.tagId)
    yield* adjustTagCounts(sql, tagIds, -1)
    return tagIds
  })
