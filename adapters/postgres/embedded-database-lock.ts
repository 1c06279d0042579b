import { SqlError } from "@effect/sql/SqlError"
import { Effect, Schema, type Scope } from "effect"
import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"

/** The embedded database belongs to one process at a time, and another process holds it. */
export class EmbeddedDatabaseInUse extends Schema.TaggedError<EmbeddedDatabaseInUse>()("EmbeddedDatabaseInUse", {
  dataDir: Schema.String,
  pid: Schema.Number
}) {
  override get message() {
    return `the embedded database in ${this.dataDir} is in use by process ${this.pid}: ` +
      `stop the server holding it, or use the HTTP API instead ` +
      `(if no such process runs, delete ${lockFilePath(this.dataDir)})`
  }
}

const LOCK_FILE = "roster.lock"

export const lockFilePath = (dataDir: string): string => join(dataDir, LOCK_FILE)

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

const errorCode = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | undefined)?.code

const unavailable = (dataDir: string) => (cause: unknown) =>
  new SqlError({ cause, message: `Cannot open the embedded database in ${dataDir}` })

type Attempt = { readonly _tag: "Locked" } | { readonly _tag: "Held"; readonly pid: number }

/** Creates the lock file holding our pid, unless a live process holds it; a stale one is replaced. */
const tryLock = (path: string): Attempt => {
  for (;;) {
    try {
      writeFileSync(path, String(process.pid), { flag: "wx" })
      return { _tag: "Locked" }
    } catch (error) {
      if (errorCode(error) !== "EEXIST") throw error
    }
    const pid = Number.parseInt(readFileSync(path, "utf8"), 10)
    if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) return { _tag: "Held", pid }
    try {
      unlinkSync(path)
    } catch (error) {
      if (errorCode(error) !== "ENOENT") throw error
    }
  }
}

/**
 * Holds `<dataDir>/roster.lock` for the life of the scope, creating the directory if missing.
 * The file names the holding process; a file whose process is gone is stale and taken over.
 */
export const lockDataDir = (dataDir: string): Effect.Effect<void, EmbeddedDatabaseInUse | SqlError, Scope.Scope> => {
  const path = lockFilePath(dataDir)
  const release = Effect.sync(() => {
    try {
      if (readFileSync(path, "utf8") === String(process.pid)) unlinkSync(path)
    } catch {
      // Already gone: nothing to release.
    }
  })
  const acquire = Effect.try({
    try: () => {
      mkdirSync(dataDir, { recursive: true })
      return tryLock(path)
    },
    catch: unavailable(dataDir)
  }).pipe(
    Effect.flatMap((attempt) =>
      attempt._tag === "Locked" ? Effect.void : Effect.fail(new EmbeddedDatabaseInUse({ dataDir, pid: attempt.pid }))
    )
  )
  return Effect.acquireRelease(acquire, () => release)
}
