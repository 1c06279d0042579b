#!/usr/bin/env node
// `roster` on the PATH: the compiled CLI, built first if the sources are newer.
import { buildRoster } from "../../scripts/build.mjs"

await buildRoster()
await import("../../dist/cli.mjs")
