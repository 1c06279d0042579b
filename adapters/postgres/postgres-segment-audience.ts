import * as SqlClient from "@effect/sql/SqlClient"
import { SegmentAudience } from "@roster/application"
import { Effect, Layer } from "effect"
import { subscriberColumns } from "./columns.js"
import type { Row } from "./rows.js"
import { segmentMembers } from "./segment-predicate.js"
import { subscriberOfRow } from "./trusted-rows.js"

/** Who matches a segment filter: one query over the organization's subscribers with the compiled predicate. */
export const PostgresSegmentAudienceLive = Layer.effect(
  SegmentAudience,
  Effect.map(SqlClient.SqlClient, (sql) => {
    const columns = sql.literal(subscriberColumns.map((c) => `s.${c}`).join(", "))
    return SegmentAudience.of({
      count: (organizationId, filter, now) =>
        sql`SELECT count(*)::integer AS count FROM subscribers s WHERE ${segmentMembers(sql, organizationId, filter, now)}`.pipe(
          Effect.map((rows) => Number(rows[0]?.count ?? 0)),
          Effect.orDie
        ),
      page: (organizationId, filter, now, { after, limit, offset }) =>
        sql<Row>`
          SELECT ${columns} FROM subscribers s
          WHERE ${segmentMembers(sql, organizationId, filter, now)}
            ${after === undefined ? sql`` : sql`AND s.id > ${after}`}
          ORDER BY s.id
          LIMIT ${limit} ${offset === undefined ? sql`` : sql`OFFSET ${offset}`}`.pipe(
          Effect.map((rows) => rows.map(subscriberOfRow)),
          Effect.orDie
        ),
      matches: (organizationId, filter, now, subscriberId) =>
        sql`
          SELECT EXISTS (
            SELECT 1 FROM subscribers s WHERE s.id = ${subscriberId} AND ${segmentMembers(sql, organizationId, filter, now)}
          ) AS matches`.pipe(
          Effect.map((rows) => rows[0]?.matches === true),
          Effect.orDie
        )
    })
  })
)
