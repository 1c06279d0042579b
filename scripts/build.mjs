#!/usr/bin/env node
/**
 * Compiles Roster's four programs (start, api, worker, cli) to `dist/<name>-<hash>.cjs`: one
 * script each, with the dependencies it uses bundled in and the rest of theirs left out, so a
 * process loads only the code it runs, and `dist/<name>.mjs`, which starts it from V8's code
 * cache (program-launcher.mjs); beside them `dist/liquid-render-thread.mjs`, the task of the
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
/**
 * V8 flags a program sets itself, before it is compiled (program-launcher.mjs says why then).
 * The CLI's heap grows by at most 60 % over what a full collection left, as the API's does (its
 * npm scripts give the flag; the CLI is started in too many ways for that). An import of
 * 1,000,000 rows keeps about 45 MB alive: V8's default let its heap reach 200 MB before
 * collecting, and the process 350 MB; so it stays near 210 MB, for about a tenth more time.
 */
const programFlags = { cli: ["--heap-growing-percent=60"] }

/** Modules built beside the programs that the programs load themselves (worker threads' tasks, child processes). */
const threadTasks = {
  "liquid-render-thread": "adapters/liquid/liquid-render-thread.mjs",
  "pglite-initdb": "adapters/postgres/pglite-initdb.mjs"
}
const sources = ["domain", "application", "adapters", "apps", "package-lock.json", "scripts/build.mjs", "scripts/program-launcher.mjs"]

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

/**
 * The first line of each program's script: strict, as the ES modules of the sources are, with
 * their own URL, and with the launcher's way to import an ES module where it gives one (see
 * `importsThroughLauncher`); a script loaded as Node.js loads CommonJS imports as such a module does.
 */
const programBanner =
  `"use strict";const __rosterModuleUrl=require("node:url").pathToFileURL(__filename).href;` +
  `const __rosterImport=typeof __rosterLauncherImport==="function"?__rosterLauncherImport:(specifier)=>import(specifier);`

/**
 * A program's script with each `import("...")` (of a module left out of it, such as PGlite) made
 * a call of `__rosterImport`: a script compiled from V8's code cache by Node.js 20 has no way of
 * its own to import an ES module, so program-launcher.mjs gives it one. A program with any other
 * `import(` fails the build rather than its start.
 */
const importsThroughLauncher = (text, path) => {
  if (!text.startsWith(programBanner)) throw new Error(`${basename(path)} does not start with its banner`)
  const rewritten = text.slice(programBanner.length).replace(/(?<![\w$.])import\(("[^"]+")\)/g, "__rosterImport($1)")
  const left = /(?<![\w$.])import\(.{0,40}/.exec(rewritten)
  if (left !== null) throw new Error(`${basename(path)}: an import the launcher cannot make: ${left[0]}`)
  return programBanner + rewritten
}

/** Builds `dist/` unless it is up to date (or `force`); whether it built. */
export const buildRoster = async ({ force = false } = {}) => {
  if (!force && upToDate()) return false
  const startedAt = Date.now()
  // Loaded only to build: a program started on an up-to-date build does not wait for it.
  const { build } = await import("esbuild")
  const common = {
    absWorkingDir: root,
    outdir: dist,
    bundle: true,
    platform: "node",
    target: "node20",
    // Workspace packages are bundled from their sources (see domain/package.json's exports).
    conditions: ["@roster/source"],
    sourcemap: "linked",
    minifyWhitespace: true,
    minifySyntax: true,
    // esbuild itself only makes the dashboard's assets when a server runs from the sources.
    external: ["@electric-sql/pglite", "redoc", "swagger-ui-dist", "piscina", "pg-native", "esbuild"],
    write: false,
    logLevel: "warning"
  }
  const [programBuild, taskBuild] = await Promise.all([
    build({
      ...common,
      entryPoints: Object.fromEntries(programs.map((name) => [name, `apps/${name}/main.ts`])),
      // Named for their text, so that a code cache is never taken for another build's script.
      entryNames: "[name]-[hash]",
      outExtension: { ".js": ".cjs" },
      format: "cjs",
      banner: { js: programBanner },
      define: { "import.meta.url": "__rosterModuleUrl" },
      metafile: true
    }),
    build({
      ...common,
      entryPoints: threadTasks,
      outExtension: { ".js": ".mjs" },
      format: "esm",
      // Bundled CommonJS dependencies call `require` for Node's own modules.
      banner: {
        js: "import { createRequire as __rosterCreateRequire } from 'node:module'; const require = __rosterCreateRequire(import.meta.url);"
      }
    })
  ])
  mkdirSync(dist, { recursive: true })
  // The scripts the launchers name now: a program starting while this runs may still read one.
  const launched = new Set(programs.flatMap((name) => {
    const launcher = existsSync(programPath(name)) ? readFileSync(programPath(name), "utf8") : ""
    return /launch\("([^"]+)"/.exec(launcher)?.slice(1) ?? []
  }))
  const write = (path, contents) => {
    const temporary = `${path}.${process.pid}.tmp`
    writeFileSync(temporary, contents)
    renameSync(temporary, path)
  }
  // Source maps first, scripts next, launchers last: a program never starts from a file that is missing.
  const outputs = [...programBuild.outputFiles, ...taskBuild.outputFiles]
  const isScript = (path) => /\.(cjs|mjs)$/.test(path)
  for (const file of outputs.sort((a, b) => Number(isScript(a.path)) - Number(isScript(b.path)))) {
    const text = file.path.endsWith(".cjs") ? importsThroughLauncher(file.text, file.path) : file.text
    write(file.path, isScript(file.path) ? latin1Only(text) : file.contents)
  }
  write(join(dist, "program-launcher.mjs"), readFileSync(join(root, "scripts", "program-launcher.mjs")))
  const scripts = new Set()
  for (const [output, { entryPoint }] of Object.entries(programBuild.metafile.outputs)) {
    const name = programs.find((program) => entryPoint === `apps/${program}/main.ts`)
    if (name === undefined) continue
    const script = basename(output)
    scripts.add(script)
    write(
      programPath(name),
      `import { launch } from "./program-launcher.mjs"\nlaunch(${JSON.stringify(script)}, ${JSON.stringify({ v8Flags: programFlags[name] ?? [] })})\n`
    )
  }
  // Earlier builds' scripts, their maps and code caches go, but for those of the last one, and
  // the maps of the ES modules the programs were before.
  const program = `(?:${programs.join("|")})`
  const scriptFile = new RegExp(`^(${program}-[A-Z0-9]+\\.cjs)(\\..*)?$`)
  const moduleMap = new RegExp(`^${program}\\.mjs\\.map$`)
  for (const entry of readdirSync(dist)) {
    const script = scriptFile.exec(entry)
    const kept = script !== null && (scripts.has(script[1]) || launched.has(script[1]))
    if ((script !== null && !kept) || moduleMap.test(entry)) {
      rmSync(join(dist, entry), { force: true })
    }
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
