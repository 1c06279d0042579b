#!/usr/bin/env node
// `roster` on the PATH: runs the TypeScript entry point through tsx.
import { spawnSync } from "node:child_process"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))
const tsx = createRequire(import.meta.url).resolve("tsx/cli")
const result = spawnSync(process.execPath, [tsx, join(here, "main.ts"), ...process.argv.slice(2)], { stdio: "inherit" })
process.exit(result.status ?? 1)
