import * as SqlClient from "@effect/sql/SqlClient"
import { type TagFilter, type TagInsertOutcome, type TagPageSort, TagRepository, type TagSort } from "@roster/application"
import { OrganizationId, Tag, TagAlreadyExists, tagNameKey } from "@roster/domain"
import { Effect, Layer, Option, Schema } from "effect"
import { selectList, tagColumns } from "./columns.js"
import { instant, keyset } from "./keyset.js"
import { orderByKeys } from "./numbered-pages.js"
import { decodeCount, decodeFirst, decodeRows, jsonb } from "./rows.js"
import { onUniqueViolation, withSavepoint } from "./transactions.js"

const sortColumns: Record<TagSort, string> = {
  name: "name_key",
  created_at: "created_at",
  subscriber_count: "subscriber_count"
}

const pageSortColumns: Record<TagPageSort, string> = { ...sortColumns, category: "category" }

const positionValue = (sort: TagSort, value: string | number): unknown =>
  sort === "name" ? String(value) : sort === "created_at" ? instant(value) : Number(value)

const decodeTag = decodeFirst(Tag)
const decodeTags = decodeRows(Tag)
const decodeOwner = decodeFirst(Schema.Struct({ organizationId: OrganizationId }))

const clashes = (tag: Tag) => ({
  tags_name_unique: () => new TagAlreadyExists({ field: "name", value: tag.name }),
  tags_slug_unique: () => new TagAlreadyExists({ field: "slug", value: tag.slug })
})

export const PostgresTagRepositoryLive = Layer.effect(
  TagRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = selectList(sql, tagColumns)

    const matching = (organizationId: OrganizationId, filter: TagFilter) => [
      sql`organization_id = ${organizationId}`,
      ...(filter.category === undefined ? [] : [sql`category = ${filter.category}`])
    ]

    /** Which of the tag's unique values another tag of its organization holds. */
    const clashOf = (tag: Tag) =>
      sql<{ readonly name_taken: boolean | null }>`
        SELECT bool_or(name_key = ${tagNameKey(tag.name)}) AS name_taken FROM tags
        WHERE organization_id = ${tag.organizationId} AND id <> ${tag.id}
          AND (name_key = ${tagNameKey(tag.name)} OR slug = ${tag.slug})`.pipe(
        Effect.orDie,
        Effect.flatMap((rows) =>
          Effect.fail(rows[0]?.name_taken === true ? clashes(tag).tags_name_unique() : clashes(tag).tags_slug_unique())
        )
      )

    return TagRepository.of({
      // With a limit, inserts into one organization take turns (a lock held to the end of the
      // transaction), so the count and the insert see every tag committed before; the condition
      // mirrors `withinLimit` of domain/limits.ts.
      insert: (tag, max) =>
        sql.withTransaction(Effect.gen(function*() {
          if (max !== null) yield* sql`SELECT pg_advisory_xact_lock(hashtextextended(${`tags:${tag.organizationId}`}, 0))`
          return yield* sql<{ readonly room: boolean; readonly inserted: boolean }>`
            WITH room AS (
              SELECT ${
            max === null ? sql`true` : sql`(SELECT count(*) FROM tags WHERE organization_id = ${tag.organizationId}) + 1 <= ${max}`
          } AS room
            ), inserted AS (
              INSERT INTO tags (
                id, organization_id, name, name_key, slug, description, display_name, category, visibility, metadata,
                created_at, updated_at
              )
              SELECT
                ${tag.id}, ${tag.organizationId}, ${tag.name}, ${tagNameKey(tag.name)}, ${tag.slug}, ${tag.description},
                ${tag.displayName}, ${tag.category}, ${tag.visibility}, ${jsonb(tag.metadata)}, ${tag.createdAt}, ${tag.updatedAt}
              FROM room WHERE room.room
              ON CONFLICT DO NOTHING
              RETURNING id
            )
            SELECT (SELECT room FROM room) AS room, EXISTS (SELECT 1 FROM inserted) AS inserted`
        })).pipe(
          // Only when the name or slug is taken does a second query say which.
          Effect.orDie,
          Effect.flatMap((rows) => {
            const outcome = rows[0]
            if (outcome?.inserted === true) return Effect.succeed(true)
            return outcome?.room === true ? clashOf(tag) : Effect.succeed(false)
          })
        ),

      // As `insert`, with a lock held to the end of the transaction under a limit; one statement
      // finds the tags whose name or slug is taken, stores as many of the others as there is room
      // for (mirroring `withinLimit`), and says what became of each.
      insertMany: (tags, max) =>
        tags.length === 0 ? Effect.succeed([]) : sql.withTransaction(Effect.gen(function*() {
          const organizationId = tags[0]!.organizationId
          if (max !== null) yield* sql`SELECT pg_advisory_xact_lock(hashtextextended(${`tags:${organizationId}`}, 0))`
          const given = JSON.stringify(tags.map((tag) => ({
            id: tag.id,
            name: tag.name,
            name_key: tagNameKey(tag.name),
            slug: tag.slug,
            description: tag.description,
            display_name: tag.displayName,
            category: tag.category,
            visibility: tag.visibility,
            metadata: tag.metadata,
            created_at: tag.createdAt,
            updated_at: tag.updatedAt
          })))
          const rows = yield* sql<{ readonly stored: boolean; readonly name_taken: boolean | null; readonly had_room: boolean }>`
            WITH given AS (
              SELECT * FROM ROWS FROM (jsonb_to_recordset(${given}::jsonb) AS (
                id uuid, name text, name_key text, slug text, description text, display_name text, category text,
                visibility text, metadata jsonb, created_at timestamptz, updated_at timestamptz
              )) WITH ORDINALITY AS g(
                id, name, name_key, slug, description, display_name, category, visibility, metadata, created_at, updated_at, n
              )
            ), clash AS (
              SELECT g.n, bool_or(t.name_key = g.name_key) AS name_taken
              FROM given g JOIN tags t ON t.organization_id = ${organizationId} AND (t.name_key = g.name_key OR t.slug = g.slug)
              GROUP BY g.n
            ), fresh AS (
              SELECT * FROM given WHERE n NOT IN (SELECT n FROM clash) ORDER BY n
              ${
            max === null
              ? sql``
              : sql`LIMIT greatest(0, ${max}::integer - (SELECT count(*) FROM tags WHERE organization_id = ${organizationId}))`
          }
            ), inserted AS (
              INSERT INTO tags (
                id, organization_id, name, name_key, slug, description, display_name, category, visibility, metadata,
                created_at, updated_at
              )
              SELECT id, ${organizationId}, name, name_key, slug, description, display_name, category, visibility, metadata,
                created_at, updated_at
              FROM fresh
              ON CONFLICT DO NOTHING
              RETURNING id
            )
            SELECT g.id IN (SELECT id FROM inserted) AS stored, c.name_taken, g.n IN (SELECT n FROM fresh) AS had_room
            FROM given g LEFT JOIN clash c ON c.n = g.n
            ORDER BY g.n`
          return rows.map((row): TagInsertOutcome =>
            row.stored
              ? "stored"
              : row.name_taken !== null
              ? (row.name_taken ? "name-taken" : "slug-taken")
              // Had room but was not stored: a tag made meanwhile took its name or slug.
              : row.had_room
              ? "slug-taken"
              : "full"
          )
        })).pipe(Effect.orDie),

      update: (tag) =>
        sql`
          UPDATE tags SET
            name = ${tag.name}, name_key = ${tagNameKey(tag.name)}, slug = ${tag.slug},
            description = ${tag.description}, display_name = ${tag.displayName}, category = ${tag.category},
            visibility = ${tag.visibility}, metadata = ${jsonb(tag.metadata)}, updated_at = ${tag.updatedAt}
          WHERE organization_id = ${tag.organizationId} AND id = ${tag.id}`.pipe(
          withSavepoint(sql),
          Effect.asVoid,
          onUniqueViolation(clashes(tag))
        ),

      delete: (organizationId, id) =>
        // Its assignments go by cascade.
        sql`DELETE FROM tags WHERE organization_id = ${organizationId} AND id = ${id} RETURNING id`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ),

      findById: (organizationId, id) =>
        sql`SELECT ${columns} FROM tags WHERE organization_id = ${organizationId} AND id = ${id}`.pipe(
          Effect.flatMap(decodeTag),
          Effect.orDie
        ),

      findByName: (organizationId, name) =>
        sql`SELECT ${columns} FROM tags WHERE organization_id = ${organizationId} AND name_key = ${tagNameKey(name)}`.pipe(
          Effect.flatMap(decodeTag),
          Effect.orDie
        ),

      findByNames: (organizationId, names) =>
        names.length === 0
          ? Effect.succeed([])
          : sql`SELECT ${columns} FROM tags
                WHERE organization_id = ${organizationId} AND name_key = ANY(${names.map(tagNameKey)}::text[])`.pipe(
            Effect.flatMap(decodeTags),
            Effect.orDie
          ),

      findByIds: (organizationId, ids) =>
        ids.length === 0
          ? Effect.succeed([])
          : sql`SELECT ${columns} FROM tags WHERE organization_id = ${organizationId} AND id = ANY(${ids}::uuid[])`.pipe(
            Effect.flatMap(decodeTags),
            Effect.orDie
          ),

      organizationOf: (id) =>
        sql`SELECT organization_id FROM tags WHERE id = ${id}`.pipe(
          Effect.flatMap(decodeOwner),
          Effect.map(Option.map((row) => row.organizationId)),
          Effect.orDie
        ),

      list: (organizationId, query) => {
        const page = keyset(sql, sortColumns[query.sort], query.order, query.after && {
          value: positionValue(query.sort, query.after.value),
          id: query.after.id
        })
        return sql`
          SELECT ${columns} FROM tags
          WHERE ${sql.and([sql`organization_id = ${organizationId}`, ...page.after])}
          ${page.orderBy}
          LIMIT ${query.limit}`.pipe(Effect.flatMap(decodeTags), Effect.orDie)
      },

      listPage: (organizationId, query) =>
        sql`
          SELECT ${columns} FROM tags
          WHERE ${sql.and(matching(organizationId, query.filter))}
          ${orderByKeys(sql, query.sort.map(({ field, order }) => ({ expression: pageSortColumns[field], order })))}
          LIMIT ${query.limit} OFFSET ${query.offset}`.pipe(Effect.flatMap(decodeTags), Effect.orDie),

      count: (organizationId, filter = {}) =>
        sql`SELECT count(*)::integer AS count FROM tags WHERE ${sql.and(matching(organizationId, filter))}`.pipe(
          Effect.flatMap(decodeCount),
          Effect.orDie
        )
    })
  })
)
