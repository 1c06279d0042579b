import * as SqlClient from "@effect/sql/SqlClient"
import { SegmentRepository } from "@roster/application"
import { OrganizationId, Segment } from "@roster/domain"
import { Effect, Layer, Option, Schema } from "effect"
import { decodeFirst, decodeRows } from "./rows.js"

const COLUMNS = "id, organization_id, name, description, filter, created_at, updated_at"

const decodeSegment = decodeFirst(Segment)
const decodeSegments = decodeRows(Segment)
const decodeOwner = decodeFirst(Schema.Struct({ organizationId: OrganizationId }))

/** Segments: a name and the filter tree as JSON; who matches is {@link PostgresSegmentAudienceLive}'s. */
export const PostgresSegmentRepositoryLive = Layer.effect(
  SegmentRepository,
  Effect.map(SqlClient.SqlClient, (sql) => {
    const columns = sql.literal(COLUMNS)
    return SegmentRepository.of({
      insert: (segment) =>
        sql`
          INSERT INTO segments (id, organization_id, name, description, filter, created_at, updated_at)
          VALUES (${segment.id}, ${segment.organizationId}, ${segment.name}, ${segment.description},
                  ${JSON.stringify(segment.filter)}::jsonb, ${segment.createdAt}, ${segment.updatedAt})`.pipe(
          Effect.asVoid,
          Effect.orDie
        ),
      update: (segment) =>
        sql`
          UPDATE segments SET name = ${segment.name}, description = ${segment.description},
                 filter = ${JSON.stringify(segment.filter)}::jsonb, updated_at = ${segment.updatedAt}
          WHERE id = ${segment.id} AND organization_id = ${segment.organizationId}`.pipe(Effect.asVoid, Effect.orDie),
      findById: (organizationId, id) =>
        sql`SELECT ${columns} FROM segments WHERE id = ${id} AND organization_id = ${organizationId}`.pipe(
          Effect.flatMap(decodeSegment),
          Effect.orDie
        ),
      organizationOf: (id) =>
        sql`SELECT organization_id FROM segments WHERE id = ${id}`.pipe(
          Effect.flatMap(decodeOwner),
          Effect.map(Option.map((row) => row.organizationId)),
          Effect.orDie
        ),
      list: ({ after, limit, offset, organizationId }) =>
        sql`
          SELECT ${columns} FROM segments
          WHERE organization_id = ${organizationId}
            ${after === undefined ? sql`` : sql`AND (created_at, id) > (${new Date(after.value)}, ${after.id})`}
          ORDER BY created_at, id
          LIMIT ${limit} ${offset === undefined ? sql`` : sql`OFFSET ${offset}`}`.pipe(
          Effect.flatMap(decodeSegments),
          Effect.orDie
        ),
      count: (organizationId) =>
        sql`SELECT count(*)::integer AS count FROM segments WHERE organization_id = ${organizationId}`.pipe(
          Effect.map((rows) => Number(rows[0]?.count ?? 0)),
          Effect.orDie
        ),
      delete: (organizationId, id) =>
        sql`DELETE FROM segments WHERE id = ${id} AND organization_id = ${organizationId} RETURNING id`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        )
    })
  })
)
