import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { SubscriberImportStore } from "@roster/application"
import { Effect, Layer, Redacted } from "effect"
import { makePgClient, makePgliteClient, PostgresPersistenceLive } from "../../adapters/postgres/index.js"
import { postgresForProcesses } from "../support/servers.js"
import { migratedOnce } from "./migrated-database.js"

/** The rows the planner believes each table holds (-1: never sampled). */
const plannedRows = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ readonly relname: string; readonly reltuples: number }>`
    SELECT relname, reltuples::float8 AS reltuples FROM pg_class
    WHERE relname IN ('subscribers', 'subscriber_tags', 'tags', 'outbox_events') ORDER BY relname`)

const settles = (persistence: Layer.Layer<SubscriberImportStore | SqlClient.SqlClient>) =>
  it.effect("settling after an import samples the tables it grew, so the planner sees their size", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`INSERT INTO organizations (id, name, slug, tier, created_at, updated_at)
        VALUES (gen_random_uuid(), 'Settle', 'settle', 'free', now(), now())`
      yield* sql`INSERT INTO subscribers (id, organization_id, email, email_key, status, metadata, created_at, updated_at)
        SELECT gen_random_uuid(), o.id, 'reader' || n || '@example.com', 'reader' || n || '@example.com', 'active', '{}', now(), now()
        FROM organizations o, generate_series(1, 500) AS n WHERE o.slug = 'settle'`
      const before = yield* plannedRows
      expect(before.find((t) => t.relname === "subscribers")?.reltuples).toBe(-1)
      yield* Effect.flatMap(SubscriberImportStore, (store) => store.settle)
      const after = yield* plannedRows
      expect(after.map((t) => t.relname)).toEqual(["outbox_events", "subscriber_tags", "subscribers", "tags"])
      expect(after.find((t) => t.relname === "subscribers")?.reltuples).toBe(500)
      for (const table of after) expect(table.reltuples, table.relname).toBeGreaterThanOrEqual(0)
    }).pipe(Effect.provide(persistence)))

describe("an import's settling on PGlite", () => {
  settles(PostgresPersistenceLive.pipe(Layer.provideMerge(migratedOnce(makePgliteClient("memory://")))))
})

describe.skipIf(!postgresForProcesses.available)(`an import's settling on ${postgresForProcesses.label}`, () => {
  const database = Effect.promise(() => postgresForProcesses.database("import_settle"))
  settles(PostgresPersistenceLive.pipe(
    Layer.provideMerge(migratedOnce(Layer.unwrapEffect(Effect.map(database, (url) => makePgClient(Redacted.make(url))))))
  ))
})
