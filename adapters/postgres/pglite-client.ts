import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlConnection from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import { PgClient } from "@effect/sql-pg"
import type { PGlite } from "@electric-sql/pglite"
import { Cause, Effect, Either, Exit, Layer, Option, Queue, Stream } from "effect"
import { execFile } from "node:child_process"
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { promisify } from "node:util"
import { gunzip as zlibGunzip } from "node:zlib"
import { fileURLToPath } from "node:url"
import { type EmbeddedDatabaseInUse, lockDataDir } from "./embedded-database-lock.js"
import { writeTemplateFiles } from "./template-files.js"

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

/** The program that makes a new embedded database, or the template of one, in a process of its own (pglite-initdb.mjs). */
const initdbProgram = fileURLToPath(new URL("./pglite-initdb.mjs", import.meta.url))

/** The version of PGlite this process loads, read from its package.json. */
const pgliteVersion = (): string => {
  const entry = createRequire(import.meta.url).resolve("@electric-sql/pglite")
  return (JSON.parse(readFileSync(join(dirname(entry), "..", "package.json"), "utf8")) as { version: string }).version
}

/**
 * Where the template of a new database is kept unless told otherwise: beside this module (in
 * `dist/` for the built programs, where the build writes it), named for the PGlite version that
 * made it, so that another version of PGlite never loads it.
 */
export const defaultPgliteTemplate = (): string =>
  fileURLToPath(new URL(`./pglite-template-${pgliteVersion()}.tar.gz`, import.meta.url))

/** Runs pglite-initdb.mjs with `args`; fails with what it wrote to stderr. */
const runInitdb = (args: ReadonlyArray<string>, message: string) =>
  Effect.async<void, SqlError>((resume) => {
    const child = execFile(process.execPath, [initdbProgram, ...args], { maxBuffer: 1024 * 1024 }, (error, _stdout, stderr) => {
      resume(
        error === null
          ? Effect.void
          : Effect.fail(new SqlError({ cause: error, message: `${message}: ${stderr.trim() || error.message}` }))
      )
    })
    return Effect.sync(() => child.kill())
  })

/** The templates this process is making, by file: callers that need the same one wait for one child. */
const making = new Map<string, Promise<Exit.Exit<void, SqlError>>>()

const gunzip = promisify(zlibGunzip)

/**
 * The template of a new database (the tarball, unpacked), made first if `file` holds none (in a
 * process of its own, as a database is made); nothing, with a warning, where it cannot be made or
 * read (a read-only installation), and the database is then made without it.
 */
const loadTemplate = (file: string): Effect.Effect<Option.Option<Uint8Array>> =>
  Effect.gen(function*() {
    if (!existsSync(file)) {
      let made = making.get(file)
      if (made === undefined) {
        made = Effect.runPromiseExit(runInitdb(["--template", file], `Cannot make the template of a new embedded database in ${file}`))
        making.set(file, made)
        void made.finally(() => making.delete(file))
      }
      const exit = yield* Effect.promise(() => made)
      if (Exit.isFailure(exit)) {
        yield* Effect.logWarning("A new embedded database is made without a template", Cause.squash(exit.cause))
        return Option.none()
      }
    }
    // Unpacked here rather than by PGlite, which leaves a rejection of its own unhandled when it cannot.
    return yield* Effect.tryPromise(async () => new Uint8Array(await gunzip(await readFile(file)))).pipe(
      Effect.map(Option.some),
      Effect.catchAll((error) =>
        Effect.as(Effect.logWarning(`A new embedded database is made without a template: cannot read ${file}`, error), Option.none())
      )
    )
  })

/**
 * The embedded database's buffer pool. PostgreSQL's default, 128 MB, is taken from the WebAssembly
 * heap and touched whole as the database opens; the files beneath it are the operating system's
 * to cache, as they are for any PostgreSQL, so a smaller pool costs a read from that cache where a
 * larger one would have held the page. With 16 MB a process holds about 120 MB less and opens the
 * database in about half the time, and reads and writes over a table eight times the pool's size
 * take as long as with 128 MB (README, Memory).
 */
const EMBEDDED_SHARED_BUFFERS = "16MB"

/** Opens the database of `dataDir`; one in memory is loaded first from `template` if given. */
const open = (dataDir: string, template?: Uint8Array) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      // Loaded here, not with this module: a program on PostgreSQL never loads PGlite.
      try: () =>
        import("@electric-sql/pglite").then(({ PGlite, types }) =>
          PGlite.create({
            dataDir,
            startParams: [...PGlite.defaultStartParams, "-c", `shared_buffers=${EMBEDDED_SHARED_BUFFERS}`],
            ...(template === undefined ? {} : { loadDataDir: new Blob([template], { type: "application/x-tar" }) }),
            // int8 as a string, as node-postgres answers it; everything else parses alike by default.
            parsers: { [types.INT8]: (value: string) => value }
          })
        ),
      catch: (cause) => new SqlError({ cause, message: `Cannot open the embedded database in ${dataDir}` })
    }),
    (db) => Effect.promise(() => db.close())
  )

/**
 * Makes the database of a directory that holds none yet (or of memory) from the template, which
 * is the files of a new database: about 1 s and 400 MB less than PGlite's initdb, which runs a
 * second PostgreSQL and the initdb program beside the one it opens, each with a WebAssembly heap
 * of its own. Into a directory the files are written as they are, and the database is then opened
 * as on any later start; in memory, PGlite loads them. Where there is no template, or it does not
 * load (the files it wrote are removed), the database is made as PGlite makes it: in memory by
 * this process, and in a directory by a process of its own, so that this one never holds that
 * memory.
 */
const openNew = (dataDir: string, templateFile: string) =>
  Effect.gen(function*() {
    const template = yield* loadTemplate(templateFile)
    if (Option.isSome(template)) {
      if (dataDir === IN_MEMORY) {
        const loaded = yield* Effect.either(open(dataDir, template.value))
        if (Either.isRight(loaded)) return loaded.right
        yield* Effect.logWarning(`The template of a new embedded database does not load from ${templateFile}`, loaded.left.cause)
      } else {
        const before = new Set(readdirSync(dataDir))
        const written = yield* Effect.either(Effect.tryPromise(() => writeTemplateFiles(template.value, dataDir)))
        if (Either.isRight(written)) return yield* open(dataDir)
        yield* Effect.logWarning(`The template of a new embedded database does not load from ${templateFile}`, written.left.error)
        for (const entry of readdirSync(dataDir)) {
          if (!before.has(entry)) rmSync(join(dataDir, entry), { recursive: true, force: true })
        }
      }
    }
    if (dataDir !== IN_MEMORY) yield* runInitdb([dataDir], `Cannot make the embedded database in ${dataDir}`)
    return yield* open(dataDir)
  })

/** Options of the embedded database. */
export interface PgliteOptions {
  /** The template new databases are loaded from, made where missing (default: `defaultPgliteTemplate()`). */
  readonly template?: string
}

/**
 * The embedded database: PostgreSQL compiled to WebAssembly, in this process. `dataDir` is a
 * directory (created if missing, and locked against other processes while open) or
 * `"memory://"` for a database that lives as long as the layer. A new database is loaded from the
 * template (see `openNew`).
 */
export const makePgliteClient = (
  dataDir: string | typeof IN_MEMORY,
  options: PgliteOptions = {}
): Layer.Layer<SqlClient.SqlClient, EmbeddedDatabaseInUse | SqlError> =>
  Layer.scoped(
    SqlClient.SqlClient,
    Effect.gen(function*() {
      if (dataDir !== IN_MEMORY) yield* lockDataDir(dataDir)
      const db = dataDir !== IN_MEMORY && existsSync(join(dataDir, "PG_VERSION"))
        ? yield* open(dataDir)
        : yield* openNew(dataDir, options.template ?? defaultPgliteTemplate())
      return yield* makeClient(db)
    })
  ).pipe(Layer.provide(Reactivity.layer))
