import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlConnection from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import { PgClient } from "@effect/sql-pg"
import { PGlite, types } from "@electric-sql/pglite"
import { Effect, Layer, Queue, Stream } from "effect"
import { execFile } from "node:child_process"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { type EmbeddedDatabaseInUse, lockDataDir } from "./embedded-database-lock.js"

const IN_MEMORY = "memory://"

const failed = (cause: unknown) => new SqlError({ cause, message: "Failed to execute statement" })

/**
 * One connection over one PGlite instance. Statements without parameters use the simple protocol,
 * so that migrations may hold several statements; a multi-statement text answers one row list
 * per statement, as node-postgres does.
 */
const makeConnection = (db: PGlite): SqlConnection.Connection => {
  const rows = (sql: string, params: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<object>, SqlError> =>
    Effect.tryPromise({
      try: async () => {
        if (params.length > 0) return (await db.query<object>(sql, [...params])).rows
        const results = await db.exec(sql)
        return results.length === 1 ? results[0]!.rows : results.map((result) => result.rows)
      },
      catch: failed
    })

  const connection: SqlConnection.Connection = {
    execute: (sql, params, transformRows) =>
      transformRows === undefined ? rows(sql, params) : Effect.map(rows(sql, params), transformRows),
    executeRaw: (sql, params) => Effect.tryPromise({ try: () => db.query(sql, [...params]), catch: failed }),
    executeValues: (sql, params) =>
      Effect.tryPromise({
        try: async () => (await db.query<Array<unknown>>(sql, [...params], { rowMode: "array" })).rows,
        catch: failed
      }),
    executeUnprepared: (sql, params, transformRows) => connection.execute(sql, params, transformRows),
    executeStream: (sql, params, transformRows) =>
      Stream.fromIterableEffect(connection.execute(sql, params, transformRows))
  }
  return connection
}

/**
 * A SqlClient over PGlite. PGlite is one database session, so statements take turns: each
 * statement holds the session while it runs, and a transaction holds it from BEGIN to the end.
 * The turn is a FIFO queue of one slot (fair, and linear in the number of waiters). Waiting for a
 * turn cannot be interrupted; an interrupted waiter gives its turn back as soon as it gets it.
 */
const makeClient = (db: PGlite) =>
  Effect.gen(function*() {
    const turn = yield* Queue.bounded<void>(1)
    const connection = makeConnection(db)
    const acquirer = Effect.as(Effect.acquireRelease(Queue.offer(turn, undefined), () => Queue.take(turn)), connection)
    return yield* SqlClient.make({
      acquirer,
      transactionAcquirer: acquirer,
      compiler: PgClient.makeCompiler(),
      spanAttributes: [["db.system.name", "postgresql"]]
    })
  })

/** The program that makes a new embedded database in a process of its own (pglite-initdb.mjs). */
const initdbProgram = fileURLToPath(new URL("./pglite-initdb.mjs", import.meta.url))

/**
 * Makes the database of a data directory that holds none yet, in a child process: PGlite makes a
 * new database with two more WebAssembly heaps beside the one it opens (a second PostgreSQL and
 * initdb), about 450 MB that a process keeps once it has had them. Started in a process of its
 * own, the service never holds them; the directory is then opened as on any later start.
 */
const initialize = (dataDir: string) =>
  existsSync(join(dataDir, "PG_VERSION"))
    ? Effect.void
    : Effect.async<void, SqlError>((resume) => {
      const child = execFile(process.execPath, [initdbProgram, dataDir], { maxBuffer: 1024 * 1024 }, (error, _stdout, stderr) => {
        resume(
          error === null ? Effect.void : Effect.fail(
            new SqlError({
              cause: error,
              message: `Cannot make the embedded database in ${dataDir}: ${stderr.trim() || error.message}`
            })
          )
        )
      })
      return Effect.sync(() => child.kill())
    })

const open = (dataDir: string) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      // int8 as a string, as node-postgres answers it; everything else parses alike by default.
      try: () => PGlite.create({ dataDir, parsers: { [types.INT8]: (value: string) => value } }),
      catch: (cause) => new SqlError({ cause, message: `Cannot open the embedded database in ${dataDir}` })
    }),
    (db) => Effect.promise(() => db.close())
  )

/**
 * The embedded database: PostgreSQL compiled to WebAssembly, in this process. `dataDir` is a
 * directory (created if missing, and locked against other processes while open) or
 * `"memory://"` for a database that lives as long as the layer.
 */
export const makePgliteClient = (
  dataDir: string | typeof IN_MEMORY
): Layer.Layer<SqlClient.SqlClient, EmbeddedDatabaseInUse | SqlError> =>
  Layer.scoped(
    SqlClient.SqlClient,
    Effect.gen(function*() {
      if (dataDir !== IN_MEMORY) {
        yield* lockDataDir(dataDir)
        yield* initialize(dataDir)
      }
      return yield* makeClient(yield* open(dataDir))
    })
  ).pipe(Layer.provide(Reactivity.layer))
