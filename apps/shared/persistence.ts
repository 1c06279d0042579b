import {
  makePgClient,
  makePgliteClient,
  PostgresPersistenceLive,
  PostgresWorkSignalLive,
  runMigrations
} from "../../adapters/postgres/index.js"
import { InProcessWorkSignalLive } from "../../adapters/in-process/index.js"
import { Effect, Layer, Option } from "effect"
import { setFlagsFromString } from "node:v8"
import { embeddedDatabaseDir, type RosterConfig } from "./config.js"

/**
 * The database: PostgreSQL or the embedded one, with its migrations. A module of its own, so that
 * the CLI loads the database and nothing of the HTTP server, the mailers or the cache.
 */

/** Where the data lives, in words for start-up lines and errors. */
export const describeDatabase = (config: RosterConfig): string =>
  Option.match(config.databaseUrl, {
    onNone: () => `embedded database in ${embeddedDatabaseDir(config)}`,
    onSome: () => "PostgreSQL at DATABASE_URL"
  })

/** Runs pending migrations, saying which were applied. */
export const MigrationsLive = Layer.effectDiscard(
  runMigrations.pipe(
    Effect.tap((applied) =>
      applied.length === 0
        ? Effect.logDebug("database schema is up to date")
        : Effect.logInfo(`applied migrations: ${applied.map(([id, name]) => `${id}_${name}`).join(", ")}`)
    )
  )
)

/**
 * The embedded database is PostgreSQL compiled to WebAssembly. V8 compiles each of its functions
 * quickly first and again, optimised, once it has run for a while; most of the tens of thousands
 * it has run a little at start (opening the database, migrations) and never again. In a service,
 * with a budget 55 times V8's default only the functions that keep running are optimised: a start
 * on a new database takes about 1.5 s of CPU and 30 MB less (measured on PGlite 0.5), and the
 * service optimises what its requests run as before (with the quick compiler alone, creates over
 * HTTP on the embedded database were a third slower).
 */
const EmbeddedWasmTiering = Layer.effectDiscard(Effect.sync(() => setFlagsFromString("--wasm-tiering-budget=100000000")))

/**
 * V8's quick first compiler alone, for WebAssembly that does not run long enough to repay
 * optimising it. Beside a PostgreSQL server, the process's only WebAssembly is the HTTP parser of
 * Node's `fetch` (undici's llhttp), which the Resend SDK calls: optimising that parser's one large
 * function takes V8 31 MB of compiler memory at once, on the first emails a worker sends, and the
 * worker's peak memory with it; the quick compiler's code parses an answer of Resend's at the same
 * speed (within 4 % of the CPU of a `fetch`, measured with 5,000 calls). A command on the embedded
 * database (the CLI) still optimised enough of PostgreSQL, even with the budget above, to cost it
 * about half a second of CPU and 60 MB of its 240, and an import of 100,000 rows went no faster
 * for it.
 */
const QuickWasmOnly = Layer.effectDiscard(Effect.sync(() => setFlagsFromString("--liftoff-only")))

/**
 * Every persistence port over PostgreSQL (DATABASE_URL) or the embedded database in DATA_DIR,
 * migrated first unless `migrate` is off; with the work signals of the database's processes
 * (LISTEN/NOTIFY on a server, this process alone on the embedded database).
 */
export const persistenceLayer = (
  config: RosterConfig,
  options: {
    readonly migrate: boolean
    /** A service runs until it is stopped; a command (the CLI's) ends when its work is done. */
    readonly lifetime: "service" | "command"
  }
) => {
  const migrations = options.migrate ? MigrationsLive : Layer.empty
  return Option.match(config.databaseUrl, {
    onSome: (url) =>
      Layer.merge(PostgresPersistenceLive.pipe(Layer.provide(migrations)), PostgresWorkSignalLive).pipe(
        Layer.provideMerge(makePgClient(url)),
        Layer.provide(QuickWasmOnly)
      ),
    onNone: () =>
      Layer.merge(PostgresPersistenceLive.pipe(Layer.provide(migrations)), InProcessWorkSignalLive).pipe(
        Layer.provideMerge(makePgliteClient(embeddedDatabaseDir(config))),
        Layer.provide(options.lifetime === "service" ? EmbeddedWasmTiering : QuickWasmOnly)
      )
  })
}
