import * as SqlClient from "@effect/sql/SqlClient"
import { DatabaseHealth } from "@roster/application"
import { Effect, Layer } from "effect"

export const PostgresDatabaseHealthLive = Layer.effect(
  DatabaseHealth,
  Effect.map(SqlClient.SqlClient, (sql) =>
    DatabaseHealth.of({
      name: "postgresql",
      check: sql`SELECT 1`.pipe(Effect.asVoid, Effect.mapError(() => "the database does not answer"))
    }))
)
