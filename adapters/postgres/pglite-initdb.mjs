/**
 * Makes a new embedded database in a process of its own, and exits:
 *
 * - `node pglite-initdb.mjs --template FILE`: writes the template of a new database to FILE, the
 *   gzipped tarball of a fresh database's directory that every new database is then loaded from.
 *   It is written under a temporary name and renamed, so that processes making it at the same
 *   time each leave a whole one, and a reader never sees half of one.
 * - `node pglite-initdb.mjs DATA_DIR`: makes a new database in DATA_DIR (which its caller holds
 *   locked), where there is no template to load it from.
 *
 * PGlite makes a new database with a second PostgreSQL instance and the initdb program beside the
 * one it opens, each with a WebAssembly heap of its own; run in a process of its own, that memory
 * is given back when it exits instead of staying with the caller for as long as it runs. Built to
 * `dist/pglite-initdb.mjs` beside the programs that start it.
 */
import { PGlite } from "@electric-sql/pglite"
import { closeSync, openSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { inspect } from "node:util"

const usage = () => {
  process.stderr.write("pglite-initdb.mjs: expected the data directory, or --template and the file to write\n")
  process.exit(2)
}

const [first, second] = process.argv.slice(2)
if (first === undefined || first === "" || (first === "--template" && (second === undefined || second === ""))) usage()

/**
 * Writes the template of a new database to `file`, under a temporary name first, which is created
 * before the database is made: where it cannot be written, this fails at once.
 */
const writeTemplate = async (file) => {
  const temporary = `${file}.${process.pid}.tmp`
  const fd = openSync(temporary, "w")
  try {
    const db = await PGlite.create()
    const dump = await db.dumpDataDir("gzip")
    await db.close()
    writeFileSync(fd, new Uint8Array(await dump.arrayBuffer()))
    closeSync(fd)
    renameSync(temporary, file)
  } catch (error) {
    rmSync(temporary, { force: true })
    throw error
  }
}

try {
  if (first === "--template") {
    await writeTemplate(second)
  } else {
    const db = await PGlite.create({ dataDir: first })
    await db.close()
  }
} catch (error) {
  // PGlite fails with an Error, or with the exit status of the WebAssembly program that stopped.
  const reason = error instanceof Error ? error.message : inspect(error, { breakLength: Infinity })
  process.stderr.write(`${reason}\n`)
  process.exit(1)
}
