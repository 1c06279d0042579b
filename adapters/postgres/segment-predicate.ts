import type { Statement } from "@effect/sql"
import type * as SqlClient from "@effect/sql/SqlClient"
import {
  engagementSince,
  type FilterCondition,
  type FilterNode,
  type MetadataCondition,
  metadataPath,
  type SegmentFilter
} from "@roster/domain"

/** The message events that count as each kind of engagement (the domain's port documents them). */
const engagementEvents = {
  "engagement.opened_days": ["opened", "clicked"],
  "engagement.clicked_days": ["clicked"],
  "engagement.received_days": ["sent", "delivered", "opened", "clicked"]
} as const

const comparison = { gt: ">", gte: ">=", lt: "<", lte: "<=" } as const

/** `{a: {b: value}}` for the path `a.b`: what `metadata @>` finds where the path holds the value. */
const nested = (path: ReadonlyArray<string>, value: unknown): unknown =>
  path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value)

/**
 * Compiles a segment filter to one SQL predicate over `subscribers` as `s`, for the organization
 * `organizationId` at `now`: every value is a parameter, never part of the text. Each condition is
 * true or false, never NULL, so `not` inverts exactly as `matchesFilter` does in the domain, whose
 * rules this follows row for row.
 */
export const segmentPredicate = (
  sql: SqlClient.SqlClient,
  organizationId: string,
  filter: SegmentFilter,
  now: Date
): Statement.Fragment => {
  const compile = (node: FilterNode): Statement.Fragment => {
    if ("all" in node) return node.all.length === 0 ? sql`TRUE` : sql.and(node.all.map(compile))
    if ("any" in node) return node.any.length === 0 ? sql`FALSE` : sql.or(node.any.map(compile))
    if ("not" in node) return sql`NOT (${compile(node.not)})`
    return condition(node)
  }

  const metadata = (c: MetadataCondition): Statement.Fragment => {
    const path = [...metadataPath(c.field)]
    const at = sql`(s.metadata #> ${path}::text[])`
    switch (c.op) {
      case "exists": return sql`${at} IS NOT NULL`
      case "not_exists": return sql`${at} IS NULL`
      case "eq": return sql`s.metadata @> ${JSON.stringify(nested(path, c.value))}::jsonb`
      case "neq": return sql`NOT (s.metadata @> ${JSON.stringify(nested(path, c.value))}::jsonb)`
      case "contains": {
        const inArray = sql`EXISTS (SELECT 1 FROM jsonb_array_elements(${at}) AS e(item) WHERE e.item = ${JSON.stringify(c.value)}::jsonb)`
        return typeof c.value === "string"
          ? sql`(CASE jsonb_typeof(${at}) WHEN 'string' THEN strpos(${at} #>> '{}', ${c.value}) > 0 WHEN 'array' THEN ${inArray} ELSE false END)`
          : sql`(CASE jsonb_typeof(${at}) WHEN 'array' THEN ${inArray} ELSE false END)`
      }
      default: {
        const op = sql.literal(comparison[c.op])
        return typeof c.value === "number"
          ? sql`(CASE jsonb_typeof(${at}) WHEN 'number' THEN (${at})::numeric ${op} ${String(c.value)}::numeric ELSE false END)`
          : sql`(CASE jsonb_typeof(${at}) WHEN 'string' THEN COALESCE(segment_instant(${at} #>> '{}') ${op} ${new Date(c.value)}, false) ELSE false END)`
      }
    }
  }

  const condition = (c: FilterCondition): Statement.Fragment => {
    switch (c.field) {
      case "status":
        switch (c.op) {
          case "eq": return sql`s.status = ${c.value}`
          case "neq": return sql`s.status <> ${c.value}`
          case "in": return sql`s.status = ANY(${[...c.value]}::text[])`
          case "not_in": return sql`s.status <> ALL(${[...c.value]}::text[])`
        }
        break
      case "tags": {
        const ids = [...new Set(c.value)]
        // One tag is an equality: the planner estimates it from the tag's own statistics.
        const tagIn = ids.length === 1 ? sql`st.tag_id = ${ids[0]!}` : sql`st.tag_id = ANY(${ids}::uuid[])`
        const carried = sql`SELECT 1 FROM subscriber_tags st WHERE st.subscriber_id = s.id AND ${tagIn}`
        switch (c.op) {
          case "has_any": return sql`EXISTS (${carried})`
          case "has_none": return sql`NOT EXISTS (${carried})`
          case "has_all":
            return sql`(SELECT count(*) FROM subscriber_tags st WHERE st.subscriber_id = s.id AND ${tagIn}) = ${ids.length}`
        }
        break
      }
      case "email":
        switch (c.op) {
          case "eq": return sql`s.email_key = ${c.value}`
          case "neq": return sql`s.email_key <> ${c.value}`
          case "contains": return sql`strpos(s.email_key, ${c.value}) > 0`
          case "starts_with": return sql`starts_with(s.email_key, ${c.value})`
          case "ends_with": return sql`right(s.email_key, char_length(${c.value}::text)) = ${c.value}`
          case "domain": return sql`split_part(s.email_key, '@', -1) = ${c.value}`
        }
        break
      case "created_at":
        if (c.op === "between") return sql`(s.created_at >= ${new Date(c.value[0])} AND s.created_at < ${new Date(c.value[1])})`
        return sql`s.created_at ${sql.literal(comparison[c.op])} ${new Date(c.value)}`
      case "engagement.opened_days":
      case "engagement.clicked_days":
      case "engagement.received_days": {
        const engaged = sql`EXISTS (
          SELECT 1 FROM message_events e JOIN messages m ON m.id = e.message_id
          WHERE e.organization_id = ${organizationId} AND e.type = ANY(${[...engagementEvents[c.field]]}::text[])
            AND e.occurred_at >= ${engagementSince(now, c.value)} AND m.subscriber_id = s.id)`
        return c.op === "within" ? engaged : sql`NOT ${engaged}`
      }
      default:
        return metadata(c)
    }
    return sql`FALSE`
  }

  return compile(filter)
}

/**
 * Who of the organization's subscribers (`s`) a filter holds at `now`: its predicate, with the
 * organization and without those whose erasure is under way. A segment's preview, its count and
 * a campaign audience of the segment all select with this one condition. Leaving out subscribers
 * being erased is also what lets a count be read from `subscribers_audience_idx` alone (the
 * organization's ids with their status, for those not being erased): a status and a tag are
 * counted from two indexes, never from the table.
 */
export const segmentMembers = (
  sql: SqlClient.SqlClient,
  organizationId: string,
  filter: SegmentFilter,
  now: Date
): Statement.Fragment =>
  sql`s.organization_id = ${organizationId} AND s.erasure_requested_at IS NULL
    AND (${segmentPredicate(sql, organizationId, filter, now)})`
