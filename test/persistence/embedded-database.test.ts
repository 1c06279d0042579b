import { describe, expect, it } from "@effect/vitest"
import { OrganizationRepository } from "@roster/application"
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { Cause, Effect, Exit, Layer, Option } from "effect"
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { basename, dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterEach } from "vitest"
import {
  defaultPgliteTemplate,
  EmbeddedDatabaseInUse,
  makePgliteClient,
  type PgliteOptions,
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
const withDatabase = <A, E>(
  dataDir: string,
  effect: Effect.Effect<A, E, OrganizationRepository>,
  options?: PgliteOptions
) =>
  Effect.zipRight(runMigrations, effect).pipe(
    Effect.provide(PostgresPersistenceLive.pipe(Layer.provideMerge(makePgliteClient(dataDir, options))))
  )

const IN_MEMORY = "memory://"
const initdbProgram = fileURLToPath(new URL("../../adapters/postgres/pglite-initdb.mjs", import.meta.url))

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

  it.live("opens with a buffer pool of 16 MB, on disk and in memory, whatever the database's own configuration says", () =>
    Effect.gen(function*() {
      const sharedBuffers = SqlClient.SqlClient.pipe(
        Effect.flatMap((sql) => sql<{ readonly shared_buffers: string }>`SHOW shared_buffers`),
        Effect.map((rows) => rows[0]!.shared_buffers)
      )
      const dataDir = freshDataDir()
      expect(yield* Effect.provide(sharedBuffers, makePgliteClient(dataDir))).toBe("16MB")
      // The files of the database still carry PostgreSQL's default, which the start overrides.
      expect(readFileSync(join(dataDir, "postgresql.conf"), "utf8")).toMatch(/^shared_buffers = 128MB/m)
      expect(yield* Effect.provide(sharedBuffers, makePgliteClient(dataDir))).toBe("16MB")
      expect(yield* Effect.provide(sharedBuffers, makePgliteClient(IN_MEMORY))).toBe("16MB")
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
      for (const args of [[], ["--template"]]) {
        const bare = spawnSync(process.execPath, [initdbProgram, ...args])
        expect(bare.status).toBe(2)
        expect(bare.stderr.toString()).toBe("pglite-initdb.mjs: expected the data directory, or --template and the file to write\n")
      }
    }), 120_000)
})

/** A new database made with `template` keeps what is written to it. */
const keepsAnOrganization = (dataDir: string, template: string) =>
  Effect.gen(function*() {
    const organization = anOrganization()
    const found = yield* withDatabase(
      dataDir,
      Effect.flatMap(OrganizationRepository, (r) => Effect.zipRight(r.insert(organization), r.findById(organization.id))),
      { template }
    )
    expect(Option.getOrThrow(found)).toStrictEqual(organization)
  })

describe("the template new embedded databases are loaded from", () => {
  it("is named for the PGlite version, beside the module, and the build writes it beside the programs under that name", () => {
    const pglite = createRequire(import.meta.url).resolve("@electric-sql/pglite")
    const { version } = JSON.parse(readFileSync(join(dirname(pglite), "..", "package.json"), "utf8")) as { version: string }
    const template = defaultPgliteTemplate()
    expect(template).toBe(fileURLToPath(new URL(`../../adapters/postgres/pglite-template-${version}.tar.gz`, import.meta.url)))
    // The test run builds dist/ first.
    expect(existsSync(fileURLToPath(new URL(`../../dist/${basename(template)}`, import.meta.url)))).toBe(true)
  })

  it.live("is made where it is missing, and every new database, on disk or in memory, is loaded from it", () =>
    Effect.gen(function*() {
      const template = join(freshDataDir("templates"), "template.tar.gz")
      mkdirSync(dirname(template))
      const organization = anOrganization()
      yield* withDatabase(freshDataDir(), Effect.flatMap(OrganizationRepository, (r) => r.insert(organization)), { template })
      expect(readdirSync(dirname(template))).toStrictEqual(["template.tar.gz"])
      const madeAt = statSync(template).mtimeMs

      const dataDir = freshDataDir()
      const [found, inMemory] = yield* Effect.all([
        withDatabase(dataDir, Effect.flatMap(OrganizationRepository, (r) => r.findById(organization.id)), { template }),
        withDatabase(IN_MEMORY, Effect.flatMap(OrganizationRepository, (r) => r.insert(anOrganization())), { template })
      ], { concurrency: "unbounded" })
      expect(Option.isNone(found)).toBe(true)
      expect(inMemory).toBeUndefined()
      expect(existsSync(join(dataDir, "PG_VERSION"))).toBe(true)
      expect(statSync(template).mtimeMs).toBe(madeAt)
    }), 120_000)

  it.live("where it cannot be written, a new database is made without it", () =>
    Effect.gen(function*() {
      const parent = freshDataDir("read-only")
      mkdirSync(parent)
      // A file where the template's directory would be: like a read-only installation, it cannot be written there.
      writeFileSync(join(parent, "dist"), "")
      const template = join(parent, "dist", "template.tar.gz")
      const dataDir = freshDataDir()
      yield* keepsAnOrganization(dataDir, template)
      expect(readdirSync(parent)).toStrictEqual(["dist"])
    }), 120_000)

  it.live("where it does not load, a new database is made without it", () =>
    Effect.gen(function*() {
      const template = join(freshDataDir("templates"), "template.tar.gz")
      mkdirSync(dirname(template))
      writeFileSync(template, "not a tarball")
      yield* keepsAnOrganization(IN_MEMORY, template)
      expect(readFileSync(template, "utf8")).toBe("not a tarball")
    }), 120_000)

  it.live("where it stops loading halfway into a directory, what it wrote is removed and the database is made without it", () =>
    Effect.gen(function*() {
      // A database's version file and a file of its own, then a file under the lock file's name,
      // which cannot be a directory.
      const contents = freshDataDir("contents")
      mkdirSync(join(contents, "roster.lock"), { recursive: true })
      mkdirSync(join(contents, "stray"))
      writeFileSync(join(contents, "PG_VERSION"), "17\n")
      writeFileSync(join(contents, "stray", "file"), "")
      writeFileSync(join(contents, "roster.lock", "file"), "")
      const template = join(dirname(contents), "template.tar.gz")
      const packed = spawnSync("tar", ["-czf", template, "-C", contents, "PG_VERSION", "stray/file", "roster.lock/file"])
      expect(packed.status).toBe(0)

      const dataDir = freshDataDir()
      yield* keepsAnOrganization(dataDir, template)
      expect(existsSync(join(dataDir, "stray"))).toBe(false)
      expect(readFileSync(join(dataDir, "PG_VERSION"), "utf8")).not.toBe("17\n")
    }), 120_000)
})
