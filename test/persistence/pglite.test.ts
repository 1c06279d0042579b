import { describe } from "@effect/vitest"
import { Layer } from "effect"
import { makePgliteClient, PostgresPersistenceLive } from "../../adapters/postgres/index.js"
import { persistenceContracts } from "../contract/index.js"
import { migratedOnce } from "./migrated-database.js"

describe("PostgreSQL persistence over PGlite in memory", () => {
  persistenceContracts(PostgresPersistenceLive.pipe(Layer.provide(migratedOnce(makePgliteClient("memory://")))))
})
