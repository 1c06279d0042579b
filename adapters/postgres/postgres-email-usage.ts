import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { EmailUsage } from "@roster/application"
import { Effect, Layer, Option } from "effect"
import { PgStatements } from "./pg-client.js"

const reserveText = (limited: boolean) => `
  INSERT INTO email_usage AS u (organization_id, month, sent) VALUES ($1, $2, $3)
  ON CONFLICT (organization_id, month) DO UPDATE SET sent = u.sent + $3
  WHERE ${limited ? "u.sent + $3 <= $4" : "true"}
  RETURNING sent`

const releaseText = `
  UPDATE email_usage SET sent = greatest(sent - $3, 0)
  WHERE organization_id = $1 AND month = $2`

/**
 * Monthly email counts. A reservation is one statement, in a session of its own and committed at
 * once, even when the caller is in a transaction (a sequence batch, a trigger firing): the counter
 * row is locked only while that statement runs, so concurrent sends of an organization, in one
 * worker or several, never wait for each other's transactions, and the condition (which mirrors
 * `withinLimit` of domain/limits.ts) holds across them. The embedded database has one session:
 * there the statement runs in the caller's turn, which nothing else shares anyway.
 *
 * A caller in a transaction holds one connection of the pool while its reservation takes another.
 * Those that do (the worker's three sequence lanes and its trigger lane) are fewer than the pool's
 * ten, so they cannot hold every connection while each waits for one more.
 *
 * Emails counted by a transaction that then rolls back stay counted (the caller gives back what it
 * knows it did not queue): the month's count may run ahead of what was queued, never behind.
 */
export const PostgresEmailUsageLive = Layer.effect(
  EmailUsage,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const statements = yield* Effect.serviceOption(PgStatements)
    const run = (name: string, text: string, values: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<unknown>, SqlError> =>
      Option.isSome(statements) ? statements.value.run(name, text, values) : sql.unsafe(text, values)
    return EmailUsage.of({
      reserve: (organizationId, month, count, max) =>
        max !== null && count > max
          ? Effect.succeed(false)
          : (max === null
            ? run("roster_email_usage_reserve", reserveText(false), [organizationId, month, count])
            : run("roster_email_usage_reserve_within", reserveText(true), [organizationId, month, count, max])).pipe(
              Effect.map((rows) => rows.length > 0),
              Effect.orDie
            ),
      release: (organizationId, month, count) =>
        run("roster_email_usage_release", releaseText, [organizationId, month, count]).pipe(Effect.asVoid, Effect.orDie),
      sentIn: (organizationId, month) =>
        sql`SELECT sent FROM email_usage WHERE organization_id = ${organizationId} AND month = ${month}`.pipe(
          Effect.map((rows) => Number(rows[0]?.sent ?? 0)),
          Effect.orDie
        )
    })
  })
)
