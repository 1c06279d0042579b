import * as SqlClient from "@effect/sql/SqlClient"
import { SessionRepository } from "@roster/application"
import { isUuid, Session } from "@roster/domain"
import { Effect, Layer, Option } from "effect"
import { selectList, sessionColumns } from "./columns.js"
import { decodeFirst } from "./rows.js"

const decodeSession = decodeFirst(Session)

/**
 * Sessions are named by UUIDs; any other id names none (and never reaches the uuid column, where
 * it would be an error rather than no row).
 */
export const PostgresSessionRepositoryLive = Layer.effect(
  SessionRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = selectList(sql, sessionColumns)

    return SessionRepository.of({
      insert: (session) =>
        sql`
          INSERT INTO sessions (id, user_id, created_at, expires_at, revoked_at)
          VALUES (${session.id}, ${session.userId}, ${session.createdAt}, ${session.expiresAt}, ${session.revokedAt})`
          .pipe(Effect.asVoid, Effect.orDie),

      findById: (id) =>
        isUuid(id)
          ? sql`SELECT ${columns} FROM sessions WHERE id = ${id}`.pipe(Effect.flatMap(decodeSession), Effect.orDie)
          : Effect.succeed(Option.none()),

      // Only an active session is revoked: one revoked already keeps the moment it ended.
      revoke: (id, at) =>
        isUuid(id)
          ? sql`
            UPDATE sessions SET revoked_at = ${at}
            WHERE id = ${id} AND revoked_at IS NULL AND expires_at > ${at}
            RETURNING id`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie)
          : Effect.succeed(false),

      revokeAllForUser: (userId, at) =>
        sql`
          UPDATE sessions SET revoked_at = ${at}
          WHERE user_id = ${userId} AND revoked_at IS NULL AND expires_at > ${at}
          RETURNING id`.pipe(Effect.map((rows) => rows.length), Effect.orDie)
    })
  })
)
