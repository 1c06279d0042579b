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
 * it has run a little at start (opening the database, migrations) and never again. With a budget
 * 55 times V8's default only the functions that keep running are optimised: a start on a new
 * database takes about 1.5 s of CPU and 30 MB less, a CLI command about 1 s less (measured on
 * PGlite 0.5), and a running service optimises what its requests run as before.
 */
const EmbeddedWasmTiering = Layer.effectDiscard(Effect.sync(() => setFlagsFromString("--wasm-tiering-budget=100000000")))

/**
 * Beside a PostgreSQL server, the process's only WebAssembly is the HTTP parser of Node's `fetch`
 * (undici's llhttp), which the Resend SDK calls. Optimising that parser's one large function takes
 * V8 31 MB of compiler memory at once, on the first emails a worker sends, and the worker's peak
 * memory with it; the quick first compiler alone parses an answer of Resend's at the same speed
 * (within 4 % of the CPU of a `fetch`, measured with 5,000 calls). Not for the embedded database,
 * whose WebAssembly is PostgreSQL itself.
 */
const ServerWasmTiering = Layer.effectDiscard(Effect.sync(() => setFlagsFromString("--liftoff-only")))

/**
 * Every persistence port over PostgreSQL (DATABASE_URL) or the embedded database in DATA_DIR,
 * migrated first unless `migrate` is off; with the work signals of the database's processes
 * (LISTEN/NOTIFY on a server, this process alone on the embedded database).
 */
export const persistenceLayer = (config: RosterConfig, options: { readonly migrate: boolean }) => {
  const migrations = options.migrate ? MigrationsLive : Layer.empty
  return Option.match(config.databaseUrl, {
    onSome: (url) =>
      Layer.merge(PostgresPersistenceLive.pipe(Layer.provide(migrations)), PostgresWorkSignalLive).pipe(
        Layer.provideMerge(makePgClient(url)),
        Layer.provide(ServerWasmTiering)
      ),
    onNone: () =>
      Layer.merge(PostgresPersistenceLive.pipe(Layer.provide(migrations)), InProcessWorkSignalLive).pipe(
        Layer.provideMerge(makePgliteClient(embeddedDatabaseDir(config))),
        Layer.provide(EmbeddedWasmTiering)
      )
  })
}
