#!/usr/bin/env node
/**
 * Compiles Roster's four programs (start, api, worker, cli) to `dist/<name>.mjs`: one ES module
 * each, with the dependencies it uses bundled in and the rest of theirs left out, so a process
 * loads only the code it runs; beside them `dist/liquid-render-thread.mjs`, the task of the
 * threads customer templates render in, `dist/pglite-initdb.mjs`, the process that makes a
 * new embedded database, and `dist/pglite-template-<PGlite version>.tar.gz`, the files of a new
 * embedded database that the programs load a new one from (made once for each PGlite version, so
 * that no program runs initdb), and `dist/dashboard/`, the dashboard's script and stylesheet.
 * Left outside the bundles, and loaded from node_modules:
 * PGlite (it reads its WebAssembly next to its own files), Redoc and Swagger UI (served as
 * files), and piscina (it starts its threads from a file of its own).
 *
 * `npm start`, `npm run api|worker|cli` and the test suite run it first; it does nothing when
 * `dist/` is newer than every source file and the lock file. Each file is written under a
 * temporary name and renamed, so a program started meanwhile loads the old build or the new one,
 * never half of one.
 */
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { basename, dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const dist = join(root, "dist")
const stamp = join(dist, ".built")
export const programs = ["start", "api", "worker", "cli"]

/** Where a program's build is. */
export const programPath = (program) => join(dist, `${program}.mjs`)

/** `NAME=value` words as an environment. */
export const environmentOf = (pairs) =>
  Object.fromEntries(pairs.map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]))

/**
 * How package.json's npm script `name` starts its program, written `node OPTIONS scripts/run.mjs
 * PROGRAM` or `env NAME=value ... node OPTIONS scripts/run.mjs PROGRAM`: the environment it adds,
 * the Node.js options, and the words after them. Those who start a program another way (the
 * benches, `scripts/measure-memory.mjs`) start it as the script does.
 */
export const npmScript = (name) => {
  const words = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).scripts[name].trim().split(/\s+/)
  const node = words.indexOf("node")
  const pairs = words[0] === "env" ? words.slice(1, node) : []
  const run = words.indexOf("scripts/run.mjs")
  if (node !== (words[0] === "env" ? pairs.length + 1 : 0) || run < node || pairs.some((pair) => !pair.includes("="))) {
    throw new Error(`package.json script ${name} is not [env NAME=value ...] node OPTIONS scripts/run.mjs PROGRAM`)
  }
  return {
    env: environmentOf(pairs),
    nodeOptions: words.slice(node + 1, run),
    rest: words.slice(run)
  }
}
/** Modules built beside the programs that the programs load themselves (worker threads' tasks, child processes). */
const threadTasks = {
  "liquid-render-thread": "adapters/liquid/liquid-render-thread.mjs",
  "pglite-initdb": "adapters/postgres/pglite-initdb.mjs"
}
const sources = ["domain", "application", "adapters", "apps", "package-lock.json", "scripts/build.mjs"]

/** The template of a new embedded database, named as adapters/postgres/pglite-client.ts looks for it. */
const templateName = /^pglite-template-.*\.tar\.gz(\.\d+\.tmp)?$/
const pgliteVersion = () => {
  const entry = createRequire(import.meta.url).resolve("@electric-sql/pglite")
  return JSON.parse(readFileSync(join(dirname(entry), "..", "package.json"), "utf8")).version
}

/**
 * The newest modification time under `path`, tests, builds (domain/dist/, which `npm pack` writes)
 * and the database template that programs run from the sources make beside pglite-client.ts aside.
 */
const newest = (path) => {
  const stats = statSync(path, { throwIfNoEntry: false })
  if (stats === undefined) return 0
  if (!stats.isDirectory()) return /\.test\.ts$/.test(path) || templateName.test(basename(path)) ? 0 : stats.mtimeMs
  let latest = stats.mtimeMs
  for (const entry of readdirSync(path)) {
    if (entry !== "node_modules" && entry !== "dist") latest = Math.max(latest, newest(join(path, entry)))
  }
  return latest
}

const upToDate = () => {
  const built = statSync(stamp, { throwIfNoEntry: false })
  return built !== undefined && Math.max(...sources.map((source) => newest(join(root, source)))) < built.mtimeMs
}

/**
 * A program's text with every character beyond Latin-1 written as a `\uXXXX` escape, which means
 * the same in the only places esbuild leaves them (comments and regular expressions). V8 keeps a
 * script's source in memory, two bytes a character if a single one is beyond Latin-1 and one
 * byte otherwise: 8 MB less for each process.
 */
const latin1Only = (text) =>
  text.replace(/[^\u0000-\u00ff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)

/** Builds `dist/` unless it is up to date (or `force`); whether it built. */
export const buildRoster = async ({ force = false } = {}) => {
  if (!force && upToDate()) return false
  const startedAt = Date.now()
  // Loaded only to build: a program started on an up-to-date build does not wait for it.
  const { build } = await import("esbuild")
  const result = await build({
    absWorkingDir: root,
    entryPoints: { ...Object.fromEntries(programs.map((name) => [name, `apps/${name}/main.ts`])), ...threadTasks },
    outdir: dist,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    // Workspace packages are bundled from their sources (see domain/package.json's exports).
    conditions: ["@roster/source"],
    sourcemap: "linked",
    minifyWhitespace: true,
    minifySyntax: true,
    // esbuild itself only makes the dashboard's assets when a server runs from the sources.
    external: ["@electric-sql/pglite", "redoc", "swagger-ui-dist", "piscina", "pg-native", "esbuild"],
    // Bundled CommonJS dependencies (pg, ioredis) call `require` for Node's own modules.
    banner: {
      js: "import { createRequire as __rosterCreateRequire } from 'node:module'; const require = __rosterCreateRequire(import.meta.url);"
    },
    write: false,
    logLevel: "warning"
  })
  mkdirSync(dist, { recursive: true })
  // Source maps first, entry points last: a program never starts from a file whose map is missing.
  const files = [...result.outputFiles].sort((a, b) => Number(a.path.endsWith(".mjs")) - Number(b.path.endsWith(".mjs")))
  for (const file of files) {
    const temporary = `${file.path}.${process.pid}.tmp`
    writeFileSync(temporary, file.path.endsWith(".mjs") ? latin1Only(file.text) : file.contents)
    renameSync(temporary, file.path)
  }
  // The dashboard's script and stylesheet, which the programs serve from here.
  const { buildDashboardAssets } = await import("../adapters/http/dashboard/client/build-assets.mjs")
  const assets = await buildDashboardAssets({ build })
  mkdirSync(join(dist, "dashboard"), { recursive: true })
  for (const [name, text] of [["dashboard.js", assets.script], ["dashboard.css", assets.style]]) {
    const temporary = join(dist, "dashboard", `${name}.${process.pid}.tmp`)
    writeFileSync(temporary, text)
    renameSync(temporary, join(dist, "dashboard", name))
  }
  // The template of this PGlite version, unless an earlier build made it; those of others go.
  const template = `pglite-template-${pgliteVersion()}.tar.gz`
  for (const entry of readdirSync(dist)) {
    if (/^pglite-template-.*\.tar\.gz$/.test(entry) && entry !== template) rmSync(join(dist, entry), { force: true })
  }
  if (!existsSync(join(dist, template))) {
    execFileSync(process.execPath, [programPath("pglite-initdb"), "--template", join(dist, template)], { stdio: ["ignore", "inherit", "inherit"] })
  }
  // Dated from the start: a source changed while this ran makes the next run build again.
  writeFileSync(stamp, new Date(startedAt).toISOString())
  utimesSync(stamp, new Date(startedAt), new Date(startedAt))
  return true
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const startedAt = Date.now()
  const built = await buildRoster({ force: process.argv.includes("--force") })
  if (built) process.stderr.write(`built dist/ in ${Date.now() - startedAt} ms\n`)
}
