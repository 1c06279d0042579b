import * as SqlClient from "@effect/sql/SqlClient"
import { NoteRepository } from "@roster/application"
import { ApiKeyId, Note, NoteId, OrganizationId, SubscriberId, UserId } from "@roster/domain"
import { Effect, Layer, Option, Schema } from "effect"
import { decodeFirst, decodeRows } from "./rows.js"

const COLUMNS = "id, organization_id, subscriber_id, body, author_kind, author_id, created_at, updated_at"

/** A note as stored: its author in two columns. */
const NoteRow = Schema.Struct({
  id: NoteId,
  organizationId: OrganizationId,
  subscriberId: SubscriberId,
  body: Schema.String,
  authorKind: Schema.Literal("user", "api_key"),
  authorId: Schema.String,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
})

const toNote = (row: typeof NoteRow.Type): Note =>
  new Note({
    ...row,
    author: row.authorKind === "user"
      ? { kind: "user", id: UserId.make(row.authorId) }
      : { kind: "api_key", id: ApiKeyId.make(row.authorId) }
  })

const decodeNote = decodeFirst(NoteRow)
const decodeNotes = decodeRows(NoteRow)

/** Notes; a subscriber's go with them by cascade. */
export const PostgresNoteRepositoryLive = Layer.effect(
  NoteRepository,
  Effect.map(SqlClient.SqlClient, (sql) => {
    const columns = sql.literal(COLUMNS)
    return NoteRepository.of({
      insert: (note) =>
        sql`
          INSERT INTO subscriber_notes (id, organization_id, subscriber_id, body, author_kind, author_id, created_at, updated_at)
          SELECT ${note.id}, ${note.organizationId}, ${note.subscriberId}, ${note.body}, ${note.author.kind},
                 ${note.author.id}, ${note.createdAt}, ${note.updatedAt}
          WHERE EXISTS (SELECT 1 FROM subscribers WHERE id = ${note.subscriberId} AND organization_id = ${note.organizationId})`
          .pipe(Effect.asVoid, Effect.orDie),
      update: (note) =>
        sql`
          UPDATE subscriber_notes SET body = ${note.body}, updated_at = ${note.updatedAt}
          WHERE id = ${note.id} AND organization_id = ${note.organizationId} AND subscriber_id = ${note.subscriberId}`
          .pipe(Effect.asVoid, Effect.orDie),
      findById: (organizationId, subscriberId, id) =>
        sql`
          SELECT ${columns} FROM subscriber_notes
          WHERE id = ${id} AND organization_id = ${organizationId} AND subscriber_id = ${subscriberId}`.pipe(
          Effect.flatMap(decodeNote),
          Effect.map(Option.map(toNote)),
          Effect.orDie
        ),
      list: ({ after, limit, offset, organizationId, subscriberId }) =>
        sql`
          SELECT ${columns} FROM subscriber_notes
          WHERE subscriber_id = ${subscriberId} AND organization_id = ${organizationId}
            ${after === undefined ? sql`` : sql`AND (created_at, id) < (${new Date(after.value)}, ${after.id})`}
          ORDER BY created_at DESC, id DESC
          LIMIT ${limit} ${offset === undefined ? sql`` : sql`OFFSET ${offset}`}`.pipe(
          Effect.flatMap(decodeNotes),
          Effect.map((rows) => rows.map(toNote)),
          Effect.orDie
        ),
      count: (organizationId, subscriberId) =>
        sql`
          SELECT count(*)::integer AS count FROM subscriber_notes
          WHERE subscriber_id = ${subscriberId} AND organization_id = ${organizationId}`.pipe(
          Effect.map((rows) => Number(rows[0]?.count ?? 0)),
          Effect.orDie
        ),
      delete: (organizationId, subscriberId, id) =>
        sql`
          DELETE FROM subscriber_notes
          WHERE id = ${id} AND organization_id = ${organizationId} AND subscriber_id = ${subscriberId}
          RETURNING id`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie)
    })
  })
)
