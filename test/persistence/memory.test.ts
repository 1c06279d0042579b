import { describe } from "@effect/vitest"
import { MemoryPersistenceLive } from "../../adapters/in-process/index.js"
import { persistenceContracts } from "../contract/index.js"

describe("in-memory persistence", () => {
  persistenceContracts(MemoryPersistenceLive)
})
