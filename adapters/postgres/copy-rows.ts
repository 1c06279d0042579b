import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { Effect, Option } from "effect"
import pg from "pg"
import { from as copyFrom } from "pg-copy-streams"

/**
 * Rows sent with `COPY ... FROM STDIN` (pg-copy-streams), the fastest way into a PostgreSQL table:
 * no statement per row, no parameters, and the rows in the text format the server reads without
 * a parser of JSON or arrays in between. Only on a node-postgres connection inside a transaction
 * (the embedded database has none: its callers write another way).
 */

/** The node-postgres connection of the current transaction, when it runs on one. */
export const copyConnection: Effect.Effect<Option.Option<pg.ClientBase>> = Effect.map(
  Effect.serviceOption(SqlClient.TransactionConnection),
  Option.flatMap(([connection]) => {
    // @effect/sql-pg keeps a transaction's pooled client on its connection as `pg`.
    const client = (connection as { readonly pg?: unknown }).pg
    return client instanceof pg.Client ? Option.some(client as pg.ClientBase) : Option.none()
  })
)

const special = /[\\\n\r\t]/

/** A text value as a field of COPY's text format: backslash, tab and line breaks escaped. */
export const copyText = (value: string): string =>
  special.test(value)
    ? value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/\r/g, "\\r").replace(/\t/g, "\\t")
    : value

/** A value that may be absent: `\N`, COPY's NULL. */
export const copyNullable = (value: string | null): string => value === null ? "\\N" : copyText(value)

/**
 * Sends `rows` (lines of COPY's text format, each ending with a line break) to `statement`
 * (`COPY table (columns) FROM STDIN`); how many rows the server took. A failure (a constraint the
 * rows break) is a `SqlError` whose cause is the server's error, as for any statement, and it
 * leaves the transaction aborted, as a failed statement does.
 */
export const copyRows = (
  client: pg.ClientBase,
  statement: string,
  rows: string
): Effect.Effect<number, SqlError> =>
  Effect.async<number, SqlError>((resume) => {
    const stream = client.query(copyFrom(statement))
    let done = false
    const finish = (outcome: Effect.Effect<number, SqlError>) => {
      if (done) return
      done = true
      resume(outcome)
    }
    stream.on("error", (cause: unknown) => finish(Effect.fail(new SqlError({ cause, message: "Failed to copy rows" }))))
    stream.on("finish", () => finish(Effect.succeed(stream.rowCount)))
    stream.end(rows, "utf8")
  })
