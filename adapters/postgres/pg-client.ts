import type * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { PgClient } from "@effect/sql-pg"
import { Context, Duration, Effect, FiberRef, Layer, Redacted, Stream } from "effect"
import pg from "pg"
import { to as copyTo } from "pg-copy-streams"
import { makeArrayParameterEncoder } from "./binary-arrays.js"
import { type CopyRow, makeCopyTextReader } from "./copy-text.js"
import { reportPoolUsage } from "../observability/index.js"
import { PreparedQuery, type Row, type RowShapes } from "./prepared-query.js"

/** Statements with more parameters than this (batch inserts of varying length) are not kept. */
const MAX_PREPARED_PARAMETERS = 64
/** Distinct statements kept prepared, at most; past it, new ones are sent unnamed. */
const MAX_PREPARED_STATEMENTS = 2_000

/**
 * Names each statement by its text, so that node-postgres prepares it once per connection and
 * PostgreSQL plans it once, instead of parsing and planning it on every call. Only statements
 * with parameters (the others may hold several commands, which cannot be prepared) and not too
 * many of them (their variety is bounded) are named. Array parameters go in binary format where
 * the statement casts them (binary-arrays.ts).
 */
const makeStatementNamer = (encodeArrays: ReturnType<typeof makeArrayParameterEncoder>) => {
  const names = new Map<string, string>()
  return (client: pg.PoolClient) => {
    const query = client.query.bind(client) as (...args: Array<unknown>) => unknown
    ;(client as { query: unknown }).query = (text: unknown, given: unknown, callback: unknown) => {
      if (typeof text !== "string" || !Array.isArray(given) || given.length === 0) return query(text, given, callback)
      const values = encodeArrays(text, given)
      if (values.length <= MAX_PREPARED_PARAMETERS) {
        let name = names.get(text)
        if (name === undefined && names.size < MAX_PREPARED_STATEMENTS) {
          name = `roster_${names.size}`
          names.set(text, name)
        }
        if (name !== undefined) return query({ name, text, values }, callback)
      }
      return query(text, values, callback)
    }
  }
}

const CONNECT_TIMEOUT = Duration.seconds(5)

/**
 * Statements run straight on a pooled connection of a PostgreSQL server, each prepared once per
 * connection under its name and its rows described once (prepared-query.ts): for the statements
 * of the busiest requests, which pay for nothing of a SqlClient's statement (compiling, a scope
 * per statement). They never join the caller's transaction: outside one they are the request's
 * own statements, inside one they run in a session of their own and commit at once (the monthly
 * email count, postgres-email-usage.ts).
 */
export class PgStatements extends Context.Tag("roster/postgres/PgStatements")<PgStatements, {
  readonly run: (
    name: string,
    text: string,
    values: ReadonlyArray<unknown>
  ) => Effect.Effect<ReadonlyArray<{ readonly [column: string]: unknown }>, SqlError>
  /**
   * The rows of `COPY (query) TO STDOUT` (text format) as the server streams them, on a connection
   * of its own, in batches of at least `batchSize` rows (the last may hold fewer): one statement,
   * so one snapshot, and the server sends no faster than the rows are taken.
   */
  readonly copyOut: (query: string, batchSize: number) => Stream.Stream<ReadonlyArray<CopyRow>, SqlError>
}>() {}

/** The pool's `query`, given a query object that submits itself and the callback for its outcome. */
type SubmitQuery = (query: PreparedQuery, callback: (cause: unknown, rows?: ReadonlyArray<Row>) => void) => void

/** Batches of rows of the COPY text the readable gives, each of at least `batchSize` rows but the last. */
async function* copyBatches(source: AsyncIterable<Uint8Array>, batchSize: number): AsyncGenerator<ReadonlyArray<CopyRow>> {
  const reader = makeCopyTextReader()
  let batch: Array<CopyRow> = []
  for await (const chunk of source) {
    const rows = reader.push(chunk)
    batch = batch.length === 0 ? rows : batch.concat(rows)
    if (batch.length >= batchSize) {
      yield batch
      batch = []
    }
  }
  batch = batch.concat(reader.end())
  if (batch.length > 0) yield batch
}

const copyFailed = (cause: unknown) => new SqlError({ cause, message: "Failed to copy rows out" })

const makeCopyOut = (pool: pg.Pool) => (query: string, batchSize: number) =>
  Stream.unwrapScoped(Effect.map(
    Effect.acquireRelease(
      Effect.tryPromise({ try: () => pool.connect(), catch: copyFailed }).pipe(
        Effect.map((client) => ({ client, stream: client.query(copyTo(`COPY (${query}) TO STDOUT`)) }))
      ),
      // A connection left in the middle of a COPY is closed, not handed back to the pool.
      ({ client, stream }) =>
        Effect.sync(() => {
          const finished = stream.readableEnded
          if (!finished) stream.destroy()
          client.release(finished ? undefined : true)
        })
    ),
    ({ stream }) => Stream.fromAsyncIterable(copyBatches(stream, batchSize), copyFailed)
  ))

/**
 * `traced`: each statement in a span as @effect/sql makes one (`sql.execute`, with the statement's
 * text); read once, from the tracer's switch where the layer is made.
 */
const makePgStatements = (
  pool: pg.Pool,
  traced: boolean,
  encodeArrays: ReturnType<typeof makeArrayParameterEncoder>
): PgStatements["Type"] => {
  const shapes: RowShapes = new Map()
  const submit = (pool.query as unknown as SubmitQuery).bind(pool)
  const run: PgStatements["Type"]["run"] = (name, text, values) =>
    Effect.async((resume) => {
      submit(new PreparedQuery(name, text, encodeArrays(text, values), shapes), (cause, rows) => {
        resume(
          cause
            ? Effect.fail(new SqlError({ cause, message: "Failed to execute statement" }))
            : Effect.succeed(rows!)
        )
      })
    })
  return {
    copyOut: makeCopyOut(pool),
    run: traced
      ? (name, text, values) =>
        Effect.withSpan(run(name, text, values), "sql.execute", {
          kind: "client",
          captureStackTrace: false,
          attributes: { "db.system.name": "postgresql", "db.operation.name": "execute", "db.query.text": text }
        })
      : run
  }
}

/**
 * A PostgreSQL server through a pool of node-postgres connections, each statement prepared once
 * per connection. Values come back as from the embedded database: timestamptz as Date, int8 as a
 * string, jsonb parsed, integers as numbers. Fails at start when the server does not answer.
 */
export const makePgClient = (
  url: Redacted.Redacted<string>
): Layer.Layer<SqlClient.SqlClient | PgClient.PgClient | PgStatements, SqlError> => {
  const encodeArrays = makeArrayParameterEncoder()
  return Layer.unwrapScoped(Effect.map(
    Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          const pool = new pg.Pool({
            connectionString: Redacted.value(url),
            max: 10,
            idleTimeoutMillis: 30_000,
            // Also how long a statement waits for a free connection: past it, it fails rather than queues.
            connectionTimeoutMillis: Duration.toMillis(CONNECT_TIMEOUT),
            application_name: "roster",
            // Statements here are short or read a page at a time: compiling one to machine code costs
            // more than it saves, and an export of a page deep in a large table spent most of its
            // time compiling its plan.
            options: "-c jit=off"
          })
          pool.on("error", () => {})
          reportPoolUsage(() => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }))
          pool.on("connect", makeStatementNamer(encodeArrays))
          try {
            await pool.query("SELECT 1")
          } catch (error) {
            await pool.end().catch(() => undefined)
            throw error
          }
          return pool
        },
        catch: (cause) => new SqlError({ cause, message: "PgClient: Failed to connect" })
      }),
      (pool) => Effect.promise(() => pool.end()).pipe(Effect.interruptible, Effect.timeoutOption(1000))
    ),
    (pool) =>
      Layer.merge(
        // The pool ends with this layer, not with the client.
        PgClient.layerFromPool({ applicationName: "roster", acquire: Effect.succeed(pool) }),
        Layer.effect(
          PgStatements,
          Effect.map(FiberRef.get(FiberRef.currentTracerEnabled), (traced) => makePgStatements(pool, traced, encodeArrays))
        )
      )
  ))
}
