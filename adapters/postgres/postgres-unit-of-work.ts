import * as SqlClient from "@effect/sql/SqlClient"
import { UnitOfWork } from "@roster/application"
import { Effect, Layer } from "effect"
import { transactional } from "./transactions.js"

/**
 * A database transaction around the effect. A nested call joins the outer transaction rather than
 * opening a savepoint, as the port promises: the outer transaction decides for all of it.
 */
export const PostgresUnitOfWorkLive = Layer.effect(
  UnitOfWork,
  Effect.map(SqlClient.SqlClient, (sql) => UnitOfWork.of({ transaction: transactional(sql) }))
)
