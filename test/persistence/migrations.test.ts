import { describe, expect, layer } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Redacted } from "effect"
import { makePgClient, makePgliteClient, runMigrations } from "../../adapters/postgres/index.js"
import { postgres } from "../support/servers.js"

const tables = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ readonly table_name: string }>`
    SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`.pipe(
    Effect.map((rows) => rows.map((row) => row.table_name))
  ))

describe("migrations", () => {
  layer(makePgliteClient("memory://"))("on a new embedded database", (it) => {
    it.effect("apply once, in order; a second run applies nothing", () =>
      Effect.gen(function*() {
        expect(yield* runMigrations).toStrictEqual([[1, "initial_schema"], [2, "dashboard_access"]])
        expect(yield* runMigrations).toStrictEqual([])
        expect(yield* tables).toStrictEqual([
          "api_keys",
          "effect_sql_migrations",
          "magic_links",
          "memberships",
          "organizations",
          "outbox_events",
          "sessions",
          "subscriber_tags",
          "subscribers",
          "tags",
          "users"
        ])
      }))
  })

  describe.skipIf(!postgres.available)(postgres.label, () => {
    layer(makePgClient(Redacted.make(postgres.url ?? "")))((it) => {
      it.effect("runs started together apply each migration once, and a later run applies nothing", () =>
        Effect.gen(function*() {
          const runs = yield* Effect.all([runMigrations, runMigrations, runMigrations], { concurrency: "unbounded" })
          expect(runs.flat().filter(([id]) => id === 1).length).toBeLessThanOrEqual(1)
          expect(yield* runMigrations).toStrictEqual([])
          expect(yield* tables).toContain("subscribers")
        }))
    })
  })
})
