import { spawnSync } from "node:child_process"
import { chmodSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

/**
 * The programs of dist/ start from V8's code cache (scripts/program-launcher.mjs): the first
 * start writes it, later starts take it as it is, each set of Node.js flags has its own, a
 * dist/ that cannot be written starts without one, and with source maps on the program is loaded
 * as Node.js loads CommonJS. Each case runs the CLI of a copy of dist/ (the global setup builds
 * it), on the embedded database, which the program imports as an ES module through the launcher.
 */

const root = fileURLToPath(new URL("../..", import.meta.url))
let copy: string
let dist: string

const cli = (args: ReadonlyArray<string>, { nodeOptions = [] as ReadonlyArray<string>, env = {} as Record<string, string> } = {}) => {
  const result = spawnSync(process.execPath, [...nodeOptions, join(dist, "cli.mjs"), ...args], {
    cwd: copy,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: join(copy, "data"), ...env },
    encoding: "utf8"
  })
  expect(result.status, result.stderr).toBe(0)
  expect(result.stderr).toBe("")
  return result.stdout
}

const caches = () => readdirSync(dist).filter((name) => name.endsWith(".v8-cache")).sort()
const inode = (name: string) => statSync(join(dist, name)).ino

beforeAll(() => {
  copy = mkdtempSync(join(tmpdir(), "roster-code-cache-"))
  chmodSync(copy, 0o755)
  dist = join(copy, "dist")
  cpSync(join(root, "dist"), dist, {
    recursive: true,
    filter: (source) => !source.endsWith(".v8-cache") && !source.endsWith(".map")
  })
  // The copy resolves its packages (PGlite, imported as an ES module) from the project's.
  symlinkSync(join(root, "node_modules"), join(copy, "node_modules"))
})

afterAll(() => {
  chmodSync(dist, 0o755)
  rmSync(copy, { recursive: true, force: true })
})

describe("the programs' code cache", () => {
  it("the first start writes it, the next ones take it unchanged, and a start with other flags has its own", () => {
    expect(caches()).toEqual([])
    expect(cli(["--version"]).trim()).toBe("0.1.0")
    const [first, ...others] = caches()
    expect(others).toEqual([])
    expect(first).toMatch(/^cli-[A-Z0-9]+\.cjs\.[0-9a-f]{12}\.v8-cache$/)
    expect(statSync(join(dist, first!)).size).toBeGreaterThan(100_000)
    const written = inode(first!)

    // A cache V8 turned down would be written again, under a new inode.
    expect(JSON.parse(cli(["org", "list"]))).toMatchObject({ items: [], total: 0 })
    expect(JSON.parse(cli(["org", "create", "--name", "Cached", "--slug", "cached"]))).toMatchObject({ slug: "cached" })
    expect(caches()).toEqual([first])
    expect(inode(first!)).toBe(written)

    cli(["--version"], { nodeOptions: ["--max-old-space-size=200"] })
    expect(caches()).toHaveLength(2)
    // Flags given in NODE_OPTIONS, which process.execArgv leaves out, count too.
    cli(["--version"], { env: { NODE_OPTIONS: "--max-old-space-size=250" } })
    expect(caches()).toHaveLength(3)
    expect(inode(first!)).toBe(written)
  }, 60_000)

  it("a dist/ that cannot be written starts without writing one", () => {
    const before = caches()
    // root writes anywhere: it runs the program as nobody, whom the copy's dist/ (root's, 0755) refuses.
    const asRoot = process.getuid?.() === 0
    if (!asRoot) chmodSync(dist, 0o555)
    try {
      const run = () =>
        spawnSync(process.execPath, ["--max-old-space-size=300", join(dist, "cli.mjs"), "--version"], {
          cwd: copy,
          env: { PATH: process.env.PATH },
          encoding: "utf8",
          ...(asRoot ? { uid: 65534, gid: 65534 } : {})
        })
      const first = run()
      expect(first.status, first.stderr).toBe(0)
      expect(first.stdout.trim()).toBe("0.1.0")
      expect(first.stderr).toBe("")
      expect(caches()).toEqual(before)
      expect(readdirSync(dist).filter((name) => name.endsWith(".tmp"))).toEqual([])
    } finally {
      chmodSync(dist, 0o755)
    }
  })

  it("with source maps on, the program is loaded by Node.js itself, without a cache", () => {
    const before = caches()
    expect(JSON.parse(cli(["org", "show", "cached"], { env: { NODE_OPTIONS: "--enable-source-maps" } }))).toMatchObject({ slug: "cached" })
    expect(caches()).toEqual(before)
  })

  it("every program's launcher names a script of this build", () => {
    for (const program of ["start", "api", "worker", "cli"]) {
      const launcher = readFileSync(join(dist, `${program}.mjs`), "utf8")
      const script = /launch\("([^"]+)"/.exec(launcher)?.[1]
      expect(script, program).toMatch(new RegExp(`^${program}-[A-Z0-9]+\\.cjs$`))
      expect(statSync(join(dist, script!)).isFile()).toBe(true)
    }
  })
})
