/**
 * The JSON log's output buffer: lines logged within a window go out together when it closes, at
 * once when they reach the size bound, and before the process exits however it exits normally.
 */
import { buildSync } from "esbuild"
import { spawnSync } from "node:child_process"
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { makeBufferedOutput } from "../../adapters/node/buffered-output.js"

let dir: string
let fd: number
const written = () => readFileSync(join(dir, "out.log"), "utf8")

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "roster-output-"))
  fd = openSync(join(dir, "out.log"), "w")
})

afterEach(() => {
  closeSync(fd)
  rmSync(dir, { recursive: true, force: true })
})

/** Waits until `done` holds; the deadline only catches a hang. */
const until = async (done: () => boolean) => {
  const deadline = Date.now() + 10_000
  while (!done()) {
    if (Date.now() > deadline) throw new Error("timed out")
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

describe("the buffered output", () => {
  it("writes the lines of a window together, in order, once it closes", async () => {
    const output = makeBufferedOutput(fd, { windowMs: 50 })
    output.writeLine("one")
    await new Promise((resolve) => setImmediate(resolve))
    output.writeLine("two")
    expect(written()).toBe("")
    await until(() => written() !== "")
    expect(written()).toBe("one\ntwo\n")
    output.writeLine("three")
    expect(written()).toBe("one\ntwo\n")
    await until(() => written() !== "one\ntwo\n")
    expect(written()).toBe("one\ntwo\nthree\n")
  })

  it("writes at once what reaches the size bound, and on flush", () => {
    const output = makeBufferedOutput(fd, { windowMs: 60_000, maxChars: 12 })
    output.writeLine("12345")
    expect(written()).toBe("")
    output.writeLine("67890")
    expect(written()).toBe("12345\n67890\n")
    output.writeLine("tail")
    expect(written()).toBe("12345\n67890\n")
    output.flush()
    expect(written()).toBe("12345\n67890\ntail\n")
  })

  it("writes what waits before the process exits, when its work is done or it calls exit", () => {
    const source = fileURLToPath(new URL("../../adapters/node/buffered-output.ts", import.meta.url))
    const script = join(dir, "buffered-output.mjs")
    writeFileSync(script, buildSync({ entryPoints: [source], bundle: true, platform: "node", format: "esm", write: false }).outputFiles[0]!.text)
    const run = (body: string) =>
      spawnSync(process.execPath, ["--input-type=module", "-e", `import { makeBufferedOutput } from ${JSON.stringify(script)}\n${body}`], {
        encoding: "utf8",
        timeout: 30_000
      })
    const idle = run(`const output = makeBufferedOutput(1, { windowMs: 60_000 }); output.writeLine("a"); output.writeLine("b")`)
    expect(idle).toMatchObject({ status: 0, stdout: "a\nb\n" })
    const exited = run(`const output = makeBufferedOutput(1, { windowMs: 60_000 }); output.writeLine("last"); process.exit(3)`)
    expect(exited).toMatchObject({ status: 3, stdout: "last\n" })
  })
})
