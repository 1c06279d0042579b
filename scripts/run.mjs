#!/usr/bin/env node
/**
 * `node scripts/run.mjs PROGRAM [ARGS...]`: runs `dist/PROGRAM.mjs` (start, api, worker or cli) in
 * this process, building `dist/` first when a source is newer. `npm start`, `npm run api|worker|cli`
 * go through it: one process, rather than a build step and a program each started by npm.
 */
import { pathToFileURL } from "node:url"
import { buildRoster, programPath, programs } from "./build.mjs"

const program = process.argv[2]
if (!programs.includes(program)) {
  process.stderr.write(`run.mjs: expected one of ${programs.join(", ")}; got ${program ?? "nothing"}\n`)
  process.exit(2)
}
const startedAt = Date.now()
if (await buildRoster()) process.stderr.write(`built dist/ in ${Date.now() - startedAt} ms\n`)
// The program sees itself as the script that was run, with its own arguments after it.
const path = programPath(program)
process.argv.splice(1, 2, path)
await import(pathToFileURL(path).href)
