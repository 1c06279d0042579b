import { describe } from "@effect/vitest"
import { Layer } from "effect"
import { makePgliteClient, PostgresPersistenceLive } from "../../adapters/postgres/index.js"
import { persistenceContracts } from "../contract/index.js"
import { importProblemsBeforeReasons } from "./import-problems-before-reasons.js"
import { migratedOnce } from "./migrated-database.js"
import { sqlDeletion } from "./sql-deletion.js"

describe("PostgreSQL persistence over PGlite in memory", () => {
  const persistence = PostgresPersistenceLive.pipe(Layer.provideMerge(migratedOnce(makePgliteClient("memory://"))))
  persistenceContracts(persistence, sqlDeletion)
  importProblemsBeforeReasons(persistence)
})
