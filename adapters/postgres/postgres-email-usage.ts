import * as SqlClient from "@effect/sql/SqlClient"
import { EmailUsage } from "@roster/application"
import { Effect, Layer } from "effect"

/**
 * Monthly email counts. A reservation is one statement outside any transaction of the caller's:
 * the counter row is locked only while that statement runs, so concurrent sends of an organization
 * never wait on each other's work, and the condition (which mirrors `withinLimit` of
 * domain/limits.ts) holds across them.
 */
export const PostgresEmailUsageLive = Layer.effect(
  EmailUsage,
  Effect.map(SqlClient.SqlClient, (sql) =>
    EmailUsage.of({
      reserve: (organizationId, month, count, max) =>
        max !== null && count > max
          ? Effect.succeed(false)
          : sql`
            INSERT INTO email_usage AS u (organization_id, month, sent) VALUES (${organizationId}, ${month}, ${count})
            ON CONFLICT (organization_id, month) DO UPDATE SET sent = u.sent + ${count}
            WHERE ${max === null ? sql`true` : sql`u.sent + ${count} <= ${max}`}
            RETURNING sent`.pipe(
            Effect.map((rows) => rows.length > 0),
            Effect.orDie
          ),
      release: (organizationId, month, count) =>
        sql`
          UPDATE email_usage SET sent = greatest(sent - ${count}, 0)
          WHERE organization_id = ${organizationId} AND month = ${month}`.pipe(Effect.asVoid, Effect.orDie),
      sentIn: (organizationId, month) =>
        sql`SELECT sent FROM email_usage WHERE organization_id = ${organizationId} AND month = ${month}`.pipe(
          Effect.map((rows) => Number(rows[0]?.sent ?? 0)),
          Effect.orDie
        )
    })))
