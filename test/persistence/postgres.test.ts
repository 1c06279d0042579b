import { describe } from "@effect/vitest"
import { Layer, Redacted } from "effect"
import { makePgClient, PostgresPersistenceLive } from "../../adapters/postgres/index.js"
import { persistenceContracts } from "../contract/index.js"
import { postgres } from "../support/servers.js"
import { migratedOnce } from "./migrated-database.js"
import { sqlDeletion } from "./sql-deletion.js"

describe.skipIf(!postgres.available)(postgres.label, () => {
  const database = migratedOnce(makePgClient(Redacted.make(postgres.url ?? "")))
  persistenceContracts(PostgresPersistenceLive.pipe(Layer.provideMerge(database)), sqlDeletion)
})
