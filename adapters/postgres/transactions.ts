import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { Effect, Option } from "effect"

const isSqlError = (error: unknown): error is SqlError => error instanceof SqlError

/** Whether the current fiber runs inside a transaction. */
export const inTransaction = Effect.map(Effect.serviceOption(SqlClient.TransactionConnection), Option.isSome)

/** How often a transaction that PostgreSQL chose as a deadlock's victim is run again. */
const DEADLOCK_RETRIES = 3

/** A transaction PostgreSQL broke off to resolve a deadlock, which may simply run again. */
const isDeadlockVictim = (defect: unknown): boolean =>
  isSqlError(defect) && (defect.cause as { readonly code?: unknown } | undefined)?.code === "40P01"

/**
 * Runs `effect` in the current transaction, or in a new one when there is none. Nested calls join
 * the outer transaction (no savepoint): whatever the outer one does, all of it commits or none.
 * A database failure while beginning is a defect, as every database failure is here. A
 * transaction chosen as a deadlock's victim has been rolled back, and runs again from the start.
 */
export const transactional = (sql: SqlClient.SqlClient) =>
<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
  const attempt = (retries: number): Effect.Effect<A, E, R> =>
    sql.withTransaction(effect).pipe(
      Effect.catchIf(isSqlError, Effect.die),
      Effect.catchSomeDefect((defect) =>
        retries > 0 && isDeadlockVictim(defect) ? Option.some(attempt(retries - 1)) : Option.none()
      )
    )
  return Effect.flatMap(inTransaction, (joined) => joined ? effect : attempt(DEADLOCK_RETRIES))
}

/**
 * Runs one statement that may fail on a constraint so that its failure leaves the current
 * transaction usable: PostgreSQL aborts a whole transaction on a failed statement, so inside one
 * the statement runs under a savepoint. Outside a transaction the statement is atomic already.
 */
export const withSavepoint = (sql: SqlClient.SqlClient) => <A, R>(
  statement: Effect.Effect<A, SqlError, R>
): Effect.Effect<A, SqlError, R> =>
  Effect.flatMap(inTransaction, (joined) => joined ? sql.withTransaction(statement) : statement)

const UNIQUE_VIOLATION = "23505"

/** The constraint a statement broke, when it failed on a unique constraint. */
const uniqueConstraint = (error: SqlError): Option.Option<string> => {
  const cause = error.cause as { readonly code?: unknown; readonly constraint?: unknown } | undefined
  return cause?.code === UNIQUE_VIOLATION && typeof cause.constraint === "string"
    ? Option.some(cause.constraint)
    : Option.none()
}

/**
 * Turns a unique violation of one of the named constraints into the product's error for it; any
 * other database failure is a defect.
 */
export const onUniqueViolation = <E>(errors: Readonly<Record<string, () => E>>) =>
<A, R>(statement: Effect.Effect<A, SqlError, R>): Effect.Effect<A, E, R> =>
  Effect.catchAll(statement, (error) =>
    uniqueConstraint(error).pipe(
      Option.flatMap((constraint) => Option.fromNullable(errors[constraint])),
      Option.match({ onNone: () => Effect.die(error), onSome: (make) => Effect.fail(make()) })
    ))
