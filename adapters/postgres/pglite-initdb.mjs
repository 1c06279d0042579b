/**
 * `node pglite-initdb.mjs DATA_DIR`: makes a new embedded database in DATA_DIR (which its caller
 * holds locked) and exits. PGlite makes a new database with a second PostgreSQL instance and the
 * initdb program beside the one it opens, each with a WebAssembly heap of its own; run in a process
 * of its own, that memory is given back when it exits instead of staying with the service for as
 * long as it runs. Built to `dist/pglite-initdb.mjs` beside the programs that start it.
 */
import { PGlite } from "@electric-sql/pglite"
import { inspect } from "node:util"

const dataDir = process.argv[2]
if (dataDir === undefined || dataDir === "") {
  process.stderr.write("pglite-initdb.mjs: expected the data directory\n")
  process.exit(2)
}
try {
  const db = await PGlite.create({ dataDir })
  await db.close()
} catch (error) {
  // PGlite fails with an Error, or with the exit status of the WebAssembly program that stopped.
  const reason = error instanceof Error ? error.message : inspect(error, { breakLength: Infinity })
  process.stderr.write(`${reason}\n`)
  process.exit(1)
}
