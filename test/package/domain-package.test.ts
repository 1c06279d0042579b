import { spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as source from "../../domain/src/index.js"

/**
 * @roster/domain as an embedder gets it: `npm pack` (which builds dist/ first), the tarball
 * installed offline into an empty folder with this repository's `effect` as its peer, then used
 * from plain Node and type-checked under `moduleResolution: nodenext`. The examples run are the
 * ones in the README's "Embedding the domain" section, so the README stays true.
 */

const root = fileURLToPath(new URL("../..", import.meta.url))
const readme = readFileSync(join(root, "README.md"), "utf8")
const section = readme.slice(readme.indexOf("## Embedding the domain"), readme.indexOf("## Development"))

/** The first fenced block of `language` in the section. */
const block = (language: string): string => {
  const found = new RegExp("```" + language + "\\n([\\s\\S]*?)```").exec(section)?.[1]
  if (found === undefined) throw new Error(`the README's "Embedding the domain" has no ${language} block`)
  return found
}

const run = (command: string, args: ReadonlyArray<string>, cwd: string, env: Record<string, string> = {}) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      // A plain environment: nothing of the npm or vitest run this test is part of.
      env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? folder, ...env }
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

/** Runs `command` and answers its stdout, failing with everything it printed unless it exits 0. */
const succeed = async (command: string, args: ReadonlyArray<string>, cwd: string, env: Record<string, string> = {}) => {
  const result = await run(command, args, cwd, env)
  if (result.code !== 0) throw new Error(`${command} ${args.join(" ")} exited ${result.code}\n${result.stderr}\n${result.stdout}`)
  return result.stdout
}

/** The embedder's project: an empty folder, then the tarball and `effect` installed into it. */
let folder: string
let tarball: string
/** npm without the network, and with a cache of its own that starts empty. */
let offlineNpm: Record<string, string>

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), "roster-domain-package-"))
  offlineNpm = {
    npm_config_cache: join(folder, ".npm-cache"),
    npm_config_offline: "true",
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_update_notifier: "false"
  }
  const project = join(folder, "embedder")
  mkdirSync(project)
  const packed = JSON.parse(await succeed("npm", ["pack", "--json", "--pack-destination", folder], join(root, "domain"), offlineNpm)) as Array<{ filename: string }>
  tarball = join(folder, packed[0]!.filename)
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "embedder", private: true, type: "module" }))
  await succeed("npm", ["install", "--ignore-scripts", tarball, join(root, "node_modules/effect")], project, offlineNpm)
}, 600_000)

afterAll(() => {
  if (folder !== undefined) rmSync(folder, { recursive: true, force: true })
})

const project = () => join(folder, "embedder")

describe("@roster/domain, packed and installed in an empty project", () => {
  it("is the tarball's copy that the project imports, with effect as installed beside it", async () => {
    const installed = JSON.parse(readFileSync(join(project(), "package.json"), "utf8")) as { dependencies: Record<string, string> }
    expect(Object.keys(installed.dependencies).sort()).toEqual(["@roster/domain", "effect"])
    const resolved = await succeed(process.execPath, ["--input-type=module", "-e", "console.log(import.meta.resolve('@roster/domain'))"], project())
    expect(fileURLToPath(resolved.trim())).toBe(join(project(), "node_modules/@roster/domain/dist/index.js"))
  })

  it("runs the README's example from plain Node and prints what the README says", async () => {
    const stdout = await succeed(process.execPath, ["--input-type=module", "-e", block("js")], project())
    expect(stdout).toBe(block("text"))
    expect(stdout).toContain("InvalidStatusTransition: a subscriber cannot move from complained to active through the api")
  }, 120_000)

  it("answers every move of the subscriber state table as the sources do", async () => {
    const script = `
      import { Either } from "effect"
      import { statusTransitions, subscriberStatuses, transitionStatus, withheld } from "@roster/domain"
      const actors = ["api", "subscriber", "provider", "import"]
      const answers = subscriberStatuses.flatMap((from) => subscriberStatuses.flatMap((to) => actors.map((actor) =>
        Either.match(transitionStatus(from, to, actor), { onLeft: (e) => [from, to, actor, e._tag], onRight: (s) => [from, to, actor, s] }))))
      console.log(JSON.stringify({ statusTransitions, answers, mail: subscriberStatuses.map((status) => withheld(status, "marketing", false)) }))`
    const built = JSON.parse(await succeed(process.execPath, ["--input-type=module", "-e", script], project()))
    const actors = source.StatusActor.literals
    const answers = source.subscriberStatuses.flatMap((from) => source.subscriberStatuses.flatMap((to) => actors.map((actor) => {
      const answer = source.transitionStatus(from, to, actor)
      return [from, to, actor, answer._tag === "Left" ? answer.left._tag : answer.right]
    })))
    expect(actors).toEqual(["api", "subscriber", "provider", "import"])
    expect(built).toEqual({
      statusTransitions: source.statusTransitions,
      answers,
      mail: source.subscriberStatuses.map((status) => source.withheld(status, "marketing", false))
    })
    // Some answers by name, so an empty table on both sides could not pass.
    expect(answers).toContainEqual(["active", "bounced", "provider", "bounced"])
    expect(answers).toContainEqual(["active", "bounced", "api", "InvalidStatusTransition"])
    expect(answers).toContainEqual(["complained", "active", "api", "InvalidStatusTransition"])
    expect(built.statusTransitions).toHaveLength(8)
  }, 120_000)

  it("type-checks the README's TypeScript example under moduleResolution nodenext, with real types", async () => {
    writeFileSync(join(project(), "reactivate.ts"), block("ts"))
    // Each line below must be an error: were the declarations missing or `any`, these would not be.
    writeFileSync(join(project(), "refused.ts"), [
      `import { transitionStatus, type SubscriberStatus } from "@roster/domain"`,
      `// @ts-expect-error "pending" is not a subscriber status`,
      `export const wrong: SubscriberStatus = "pending"`,
      `// @ts-expect-error a move names who asks for it`,
      `transitionStatus("active", "unsubscribed")`,
      ``
    ].join("\n"))
    writeFileSync(join(project(), "tsconfig.json"), JSON.stringify({
      compilerOptions: {
        module: "nodenext",
        moduleResolution: "nodenext",
        target: "es2022",
        strict: true,
        noEmit: true,
        // The package's declarations are checked too, against effect's, with no @types/node.
        skipLibCheck: false,
        types: []
      },
      files: ["reactivate.ts", "refused.ts"]
    }))
    const tsc = join(root, "node_modules/typescript/bin/tsc")
    const result = await run(process.execPath, [tsc, "-p", ".", "--traceResolution"], project())
    expect(result.code, result.stdout.split("\n").filter((line) => line.includes("error")).join("\n")).toBe(0)
    expect(result.stdout).toContain(
      `Module name '@roster/domain' was successfully resolved to '${join(project(), "node_modules/@roster/domain/dist/index.d.ts")}'`
    )
  }, 600_000)

  it("holds the build and its declarations, without tests or TypeScript sources", async () => {
    const files = (await succeed("tar", ["-tzf", tarball], folder)).trim().split("\n").map((f) => f.replace(/^package\//, ""))
    expect(files).toContain("package.json")
    expect(files).toContain("dist/index.js")
    expect(files).toContain("dist/index.d.ts")
    expect(files).toContain("dist/subscriber.js")
    expect(files.filter((f) => /\.test\./.test(f))).toEqual([])
    expect(files.filter((f) => f.startsWith("src/") || (f.endsWith(".ts") && !f.endsWith(".d.ts")))).toEqual([])
    expect(files.filter((f) => f !== "package.json" && !f.startsWith("dist/") && !/^(README|LICENSE)/i.test(f))).toEqual([])
    const manifest = JSON.parse(readFileSync(join(project(), "node_modules/@roster/domain/package.json"), "utf8"))
    expect(Object.keys(manifest.peerDependencies)).toEqual(["effect"])
    expect(manifest.dependencies).toBeUndefined()
    expect(manifest.sideEffects).toBe(false)
  })
})
