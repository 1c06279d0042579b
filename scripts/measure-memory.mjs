#!/usr/bin/env node
/* global fetch */
/**
 * `node scripts/measure-memory.mjs [embedded|postgres|all]`: the resident memory of the programs as
 * `npm start`, `npm run api` and `npm run worker` run them (the node flags of their package.json
 * scripts), read from /proc/PID/status (Linux only): the peak (VmHWM) from start until ready and
 * ten seconds beyond, the steady size (VmRSS) at the end, and the most the process and the
 * processes it started held together (sampled every 100 to 250 ms, so a short peak of a child may
 * be missed).
 *
 * - embedded: `npm start` twice on a fresh DATA_DIR: the first start (which creates the embedded
 *   database) and a later one.
 * - postgres: `npm run api` and `npm run worker` against a database of their own on
 *   MEASURE_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres, whose server gets
 *   a new database `roster_memory_<pid>`, dropped at the end).
 *
 * Builds dist/ first, so that no build runs inside a measured process.
 */
import { spawn, spawnSync } from "node:child_process"
import { createServer } from "node:net"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { setTimeout as sleep } from "node:timers/promises"
import pg from "pg"
import { npmScript } from "./build.mjs"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const SETTLE_MS = Number(process.env.MEASURE_SETTLE_MS ?? 10_000)
const READY_TIMEOUT_MS = 180_000

const status = (pid) => {
  try {
    const text = readFileSync(`/proc/${pid}/status`, "utf8")
    const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? NaN)
    return { hwm: kb("VmHWM"), rss: kb("VmRSS") }
  } catch {
    return undefined
  }
}

/** The process and every process under it. */
const tree = (pid) => {
  const children = []
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      children.push(...readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").split(" ").filter((s) => s !== "").map(Number))
    }
  } catch {
    // Gone meanwhile.
  }
  return [pid, ...children.flatMap(tree)]
}

/** The resident memory of a process and of every process under it, together, in kB. */
const treeRss = (pid) =>
  tree(pid).reduce((sum, p) => {
    // A process that has exited but not been waited for has no VmRSS.
    const rss = status(p)?.rss
    return sum + (Number.isFinite(rss) ? rss : 0)
  }, 0)

/** A port no one listens on now. */
const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })

/** Runs one npm script until `ready()` holds, then SETTLE_MS more; answers its figures in MB. */
const measure = async (label, script, env, ready) => {
  const startedAt = Date.now()
  const command = npmScript(script)
  const childEnv = { ...process.env, ...command.env, LOG_LEVEL: "warning", ...env }
  for (const name of ["DATABASE_URL", "REDIS_URL", "RESEND_API_KEY", "STRIPE_SECRET_KEY"]) {
    if (env[name] === undefined) delete childEnv[name]
  }
  const child = spawn(process.execPath, [...command.nodeOptions, ...command.rest], {
    cwd: root,
    env: childEnv,
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout.on("data", (chunk) => output += chunk)
  child.stderr.on("data", (chunk) => output += chunk)
  let exited = false
  child.on("exit", () => exited = true)
  let last
  let treePeak = 0
  const sample = () => {
    last = status(child.pid) ?? last
    treePeak = Math.max(treePeak, treeRss(child.pid))
  }
  let readyMs
  try {
    while (readyMs === undefined) {
      if (exited) throw new Error(`${label} exited before it was ready:\n${output}`)
      if (Date.now() - startedAt > READY_TIMEOUT_MS) throw new Error(`${label} was not ready in ${READY_TIMEOUT_MS} ms:\n${output}`)
      sample()
      if (/^built dist\//m.test(output)) throw new Error(`${label} built dist/ itself: a source changed while measuring`)
      if (await ready()) readyMs = Date.now() - startedAt
      else await sleep(100)
    }
    const settleUntil = Date.now() + SETTLE_MS
    while (Date.now() < settleUntil) {
      if (exited) throw new Error(`${label} exited while it settled:\n${output}`)
      sample()
      await sleep(250)
    }
  } finally {
    child.kill("SIGTERM")
    await new Promise((resolve) => exited ? resolve() : child.on("exit", resolve))
  }
  const mb = (kb) => Math.round(kb / 1024)
  const figures = { label, peakMb: mb(last.hwm), steadyMb: mb(last.rss), treePeakMb: mb(treePeak), readyMs }
  console.log(
    `${label.padEnd(34)} peak (VmHWM) ${String(figures.peakMb).padStart(5)} MB   steady (VmRSS) ` +
      `${String(figures.steadyMb).padStart(5)} MB   with its child processes at most ${String(figures.treePeakMb).padStart(5)} MB   ` +
      `ready in ${(readyMs / 1000).toFixed(1)} s`
  )
  return figures
}

const answers = (env) => async () => {
  const port = env.PORT
  try {
    return (await fetch(`http://127.0.0.1:${port}/ready`)).ok
  } catch {
    return false
  }
}

const embedded = async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "roster-memory-"))
  try {
    const first = { DATA_DIR: dataDir, PORT: String(await freePort()), HOST: "127.0.0.1" }
    await measure("npm start, first (fresh DATA_DIR)", "start", first, answers(first))
    const later = { ...first, PORT: String(await freePort()) }
    await measure("npm start, later", "start", later, answers(later))
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const postgres = async () => {
  const server = process.env.MEASURE_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"
  const name = `roster_memory_${process.pid}`
  const admin = new pg.Client({ connectionString: server })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  const url = new URL(server)
  url.pathname = `/${name}`
  const dir = mkdtempSync(path.join(tmpdir(), "roster-memory-"))
  const heartbeat = path.join(dir, "heartbeat")
  try {
    const env = { DATABASE_URL: url.toString(), DATA_DIR: dir, PORT: String(await freePort()), HOST: "127.0.0.1" }
    await measure("npm run api (PostgreSQL)", "api", env, answers(env))
    await measure("npm run worker (PostgreSQL)", "worker", { ...env, WORKER_HEARTBEAT_FILE: heartbeat }, async () => existsSync(heartbeat))
  } finally {
    rmSync(dir, { recursive: true, force: true })
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await admin.end()
  }
}

if (process.platform !== "linux") {
  process.stderr.write("measure-memory.mjs reads /proc/PID/status and runs on Linux only\n")
  process.exit(2)
}
const which = process.argv[2] ?? "all"
if (!["embedded", "postgres", "all"].includes(which)) {
  process.stderr.write(`measure-memory.mjs: expected embedded, postgres or all; got ${which}\n`)
  process.exit(2)
}
const build = spawnSync(process.execPath, [path.join(root, "scripts/build.mjs")], { cwd: root, stdio: "inherit" })
if (build.status !== 0) process.exit(build.status ?? 1)
if (which !== "postgres") await embedded()
if (which !== "embedded") await postgres()
