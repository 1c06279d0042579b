import type * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer, ManagedRuntime } from "effect"
import { afterAll } from "vitest"
import { runMigrations } from "../../adapters/postgres/index.js"

/**
 * One database for a whole test file, migrated once: every suite of the file gets a layer over the
 * same client, and the client closes after the file. (A layer built by each suite would make a
 * new database, or a new pool, per suite.)
 */
export const migratedOnce = <E>(client: Layer.Layer<SqlClient.SqlClient, E>): Layer.Layer<SqlClient.SqlClient> => {
  const database = ManagedRuntime.make(Layer.effectDiscard(runMigrations).pipe(Layer.provideMerge(client)))
  afterAll(() => database.dispose())
  return Layer.effectContext(Effect.map(database.runtimeEffect, (runtime) => runtime.context)).pipe(Layer.orDie)
}
