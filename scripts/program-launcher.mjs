/**
 * Starts a program of `dist/` (see build.mjs) from V8's code cache. Node.js 20 compiles an ES
 * module anew on every start, about 110 ms for the CLI and 190 ms for the API, and compiles
 * again each function the first time it runs; so the programs are built as CommonJS scripts, and
 * this compiles one with `vm.Script`, handing V8 the code it cached on an earlier start. After
 * the script's first turn (its modules loaded, its layers begun) the code compiled so far is
 * written beside it, where `dist/` can be written, for the next start.
 *
 * V8 takes a cache only from the same V8, the same script and the same flags: the file is named
 * for the script (whose name holds a hash of its text) and for this Node.js and its flags, and a
 * cache V8 turns down is written again. A program sets the flags it needs (`v8Flags`) here,
 * before compiling, so that the cache is made and read under the same ones.
 */
import { createHash } from "node:crypto"
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { setFlagsFromString } from "node:v8"
import { Script } from "node:vm"

/** Runs `script` (a file name beside this module) with `v8Flags` set first. */
export const launch = (script, { v8Flags = [] } = {}) => {
  for (const flag of v8Flags) setFlagsFromString(flag)
  const file = join(dirname(fileURLToPath(import.meta.url)), script)
  // Node.js maps stack traces through source maps for what it loads itself, not for a vm.Script.
  if (process.sourceMapsEnabled) return void createRequire(import.meta.url)(file)
  // Node.js takes flags from NODE_OPTIONS too, which process.execArgv leaves out.
  const flags = [process.version, ...process.execArgv, process.env.NODE_OPTIONS ?? "", ...v8Flags]
  const key = createHash("sha256").update(flags.join("\0")).digest("hex").slice(0, 12)
  const cacheFile = `${file}.${key}.v8-cache`
  let cachedData
  try {
    cachedData = readFileSync(cacheFile)
  } catch {
    cachedData = undefined
  }
  // Every character of it is Latin-1 (build.mjs writes it so): V8 keeps it at one byte a character.
  const source = readFileSync(file, "utf8")
  const compiled = new Script(`(function (exports, require, module, __filename, __dirname, __rosterLauncherImport) {${source}\n})`, {
    filename: file,
    cachedData
  })
  const module = { exports: {} }
  // The script's `import()`s (build.mjs makes them calls of this), resolved from dist/ as its own would be.
  const importModule = (specifier) => import(specifier)
  compiled.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file), importModule)
  if (cachedData === undefined || compiled.cachedDataRejected === true) {
    // Best effort: a read-only installation starts without the cache, as it would without this.
    const temporary = `${cacheFile}.${process.pid}.tmp`
    try {
      writeFileSync(temporary, compiled.createCachedData())
      renameSync(temporary, cacheFile)
    } catch {
      rmSync(temporary, { force: true })
    }
  }
}
