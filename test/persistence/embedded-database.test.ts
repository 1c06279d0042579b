import { describe, expect, it } from "@effect/vitest"
import { OrganizationRepository } from "@roster/application"
import { SqlError } from "@effect/sql/SqlError"
import { Cause, Effect, Exit, Layer, Option } from "effect"
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterEach } from "vitest"
import {
  EmbeddedDatabaseInUse,
  makePgliteClient,
  PostgresPersistenceLive,
  runMigrations
} from "../../adapters/postgres/index.js"
import { anOrganization } from "../contract/fixtures.js"

const directories: Array<string> = []

/** A data directory of this test alone, removed afterwards; `nested` is not created yet. */
const freshDataDir = (nested = "data") => {
  const parent = mkdtempSync(join(tmpdir(), "roster-embedded-"))
  directories.push(parent)
  return join(parent, nested)
}

afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true })
})

/** Opens the embedded database in `dataDir` for the length of `effect`, migrated, with the repositories. */
const withDatabase = <A, E>(dataDir: string, effect: Effect.Effect<A, E, OrganizationRepository>) =>
  Effect.zipRight(runMigrations, effect).pipe(
    Effect.provide(PostgresPersistenceLive.pipe(Layer.provideMerge(makePgliteClient(dataDir))))
  )

/** The pid of a process that has exited. */
const deadPid = (): number => spawnSync(process.execPath, ["-e", ""]).pid!

describe("the embedded database on disk", () => {
  it.live("keeps its data across close and reopen, and creates its directory", () =>
    Effect.gen(function*() {
      const dataDir = freshDataDir("not/yet/there")
      const organization = anOrganization()
      yield* withDatabase(dataDir, Effect.flatMap(OrganizationRepository, (r) => r.insert(organization)))
      expect(existsSync(join(dataDir, "roster.lock"))).toBe(false)

      const applied = yield* Effect.provide(runMigrations, makePgliteClient(dataDir))
      expect(applied).toStrictEqual([])
      const found = yield* withDatabase(dataDir, Effect.flatMap(OrganizationRepository, (r) => r.findById(organization.id)))
      expect(Option.getOrThrow(found)).toStrictEqual(organization)
    }), 120_000)

  it.live("refuses a second opener while the first holds it, and opens again once it is closed", () =>
    Effect.gen(function*() {
      const dataDir = freshDataDir()
      const [holder, second] = yield* withDatabase(
        dataDir,
        Effect.all([
          Effect.sync(() => readFileSync(join(dataDir, "roster.lock"), "utf8")),
          Effect.exit(Effect.provide(Effect.void, makePgliteClient(dataDir)))
        ])
      )
      expect(holder).toBe(String(process.pid))
      expect(second).toStrictEqual(Exit.fail(new EmbeddedDatabaseInUse({ dataDir, pid: process.pid })))
      const error = new EmbeddedDatabaseInUse({ dataDir, pid: process.pid })
      expect(error.message).toContain("stop the server holding it")
      expect(error.message).toContain("HTTP API")

      expect(Exit.isSuccess(yield* Effect.exit(withDatabase(dataDir, Effect.void)))).toBe(true)
    }), 120_000)

  it.live("takes over a lock left by a process that is gone", () =>
    Effect.gen(function*() {
      const dataDir = freshDataDir()
      mkdirSync(dataDir)
      writeFileSync(join(dataDir, "roster.lock"), String(deadPid()))
      expect(Exit.isSuccess(yield* Effect.exit(withDatabase(dataDir, Effect.void)))).toBe(true)
    }), 120_000)

  it.live("refuses a lock held by another live process, and leaves it alone", () =>
    Effect.gen(function*() {
      const dataDir = freshDataDir()
      mkdirSync(dataDir)
      // The test runner's parent process is alive and is not this one.
      writeFileSync(join(dataDir, "roster.lock"), String(process.ppid))
      const exit = yield* Effect.exit(withDatabase(dataDir, Effect.void))
      expect(exit).toStrictEqual(Exit.fail(new EmbeddedDatabaseInUse({ dataDir, pid: process.ppid })))
      expect(readFileSync(join(dataDir, "roster.lock"), "utf8")).toBe(String(process.ppid))
    }))

  it.live("a new database is made in a process of its own; one it cannot make fails naming the directory, and frees it", () =>
    Effect.gen(function*() {
      const dataDir = freshDataDir()
      mkdirSync(dataDir)
      // A file where the database's own directory goes: PostgreSQL cannot be set up there.
      writeFileSync(join(dataDir, "base"), "not a directory")
      const exit = yield* Effect.exit(withDatabase(dataDir, Effect.void))
      expect(Exit.isFailure(exit)).toBe(true)
      const failure = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
      expect(failure).toBeInstanceOf(SqlError)
      expect((failure as SqlError).message).toContain(`Cannot make the embedded database in ${dataDir}: `)
      expect(existsSync(join(dataDir, "PG_VERSION"))).toBe(false)
      expect(existsSync(join(dataDir, "roster.lock"))).toBe(false)
      // The program that makes it says what it needs.
      const bare = spawnSync(process.execPath, [fileURLToPath(new URL("../../adapters/postgres/pglite-initdb.mjs", import.meta.url))])
      expect(bare.status).toBe(2)
      expect(bare.stderr.toString()).toBe("pglite-initdb.mjs: expected the data directory\n")
    }), 120_000)
})
