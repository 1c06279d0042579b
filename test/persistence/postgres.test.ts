import { describe } from "@effect/vitest"
import { Layer, Redacted } from "effect"
import { makePgClient, PostgresPersistenceLive } from "../../adapters/postgres/index.js"
import { persistenceContracts } from "../contract/index.js"
import { postgres } from "../support/servers.js"
import { concurrentClaims } from "./concurrent-claims.js"
import { importProblemsBeforeReasons } from "./import-problems-before-reasons.js"
import { migratedOnce } from "./migrated-database.js"
import { sqlDeletion } from "./sql-deletion.js"

describe.skipIf(!postgres.available)(postgres.label, () => {
  const database = migratedOnce(makePgClient(Redacted.make(postgres.url ?? "")))
  const persistence = PostgresPersistenceLive.pipe(Layer.provideMerge(database))
  persistenceContracts(persistence, sqlDeletion)
  importProblemsBeforeReasons(persistence)
  // In this file, after the contract suites: claims are not limited to an organization, so no
  // other file's tests may claim from this database at the same time.
  concurrentClaims(persistence)
})
