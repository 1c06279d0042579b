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
 * A statement for `runInOrder`: `COPY table (columns) FROM STDIN` with its `rows` (lines of COPY's
 * text format, each ending with a line break), or any other statement with its parameters.
 */
export type CopyStatement =
  | { readonly text: string; readonly rows: string }
  | { readonly text: string; readonly values?: ReadonlyArray<unknown> }

/**
 * Hands every statement to the connection at once; it sends each as soon as the one before it is
 * done, without waiting for the fiber that runs them to be woken in between. How many rows each
 * copied or returned, once all of them are done. A failure (a constraint the rows break) is a
 * `SqlError` whose cause is the server's error, that of the first statement that failed, as for
 * any statement; it leaves the transaction aborted, so the statements after it fail too.
 */
export const runInOrder = (
  client: pg.ClientBase,
  statements: ReadonlyArray<CopyStatement>
): Effect.Effect<ReadonlyArray<number>, SqlError> =>
  Effect.async<ReadonlyArray<number>, SqlError>((resume) => {
    const outcomes = new Array<number>(statements.length)
    let failure: { readonly cause: unknown } | undefined
    let pending = statements.length
    const settle = (index: number, outcome: { readonly rowCount: number } | { readonly cause: unknown }) => {
      if ("cause" in outcome) failure ??= outcome
      else outcomes[index] = outcome.rowCount
      if (--pending > 0) return
      resume(failure === undefined
        ? Effect.succeed(outcomes)
        : Effect.fail(new SqlError({ cause: failure.cause, message: "Failed to copy rows" })))
    }
    statements.forEach((statement, index) => {
      if ("rows" in statement) {
        const stream = client.query(copyFrom(statement.text))
        let done = false
        const finish = (outcome: { readonly rowCount: number } | { readonly cause: unknown }) => {
          if (done) return
          done = true
          settle(index, outcome)
        }
        stream.on("error", (cause: unknown) => finish({ cause }))
        stream.on("finish", () => finish({ rowCount: stream.rowCount }))
        stream.end(statement.rows, "utf8")
      } else {
        client.query(statement.text, [...(statement.values ?? [])], (cause, result) =>
          settle(index, cause ? { cause } : { rowCount: result.rowCount ?? 0 }))
      }
    })
  })
