import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { start } from "../support/processes.js"

/**
 * The README's five-minute tour, run as a new user runs it: `npm start` on a new data folder,
 * then every shell block of the tour, top to bottom, and the preference center's, which continues
 * it, in one shell that stops at the first failing command.
 */

const readme = readFileSync(fileURLToPath(new URL("../../README.md", import.meta.url)), "utf8")

const tourText = readme.slice(readme.indexOf("## A five-minute tour"), readme.indexOf("### More organizations and keys"))

/** The text of the README's section `heading` (a `## ` heading), up to the next one. */
const section = (heading: string) => {
  const start = readme.indexOf(`\n${heading}\n`)
  if (start === -1) throw new Error(`the README has no section ${heading}`)
  const end = readme.indexOf("\n## ", start + heading.length + 1)
  return readme.slice(start, end === -1 ? undefined : end)
}

const preferenceText = section("## The preference center")

/** The `sh` blocks of `text`, in order, as one script. */
const shellBlocks = (text: string) => [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!).join("\n")

/** The tour's `sh` blocks, then the preference center's, in order. */
const tourScript = shellBlocks(tourText)
const preferenceScript = shellBlocks(preferenceText)

const bash = (script: string, env: Record<string, string>) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn("bash", ["-euo", "pipefail", "-c", script], { env: { PATH: process.env.PATH!, ...env } })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

describe("the README's tour", () => {
  it("has commands to run, and names the free plan's limit", () => {
    expect(tourScript).toContain("export KEY=svc_test_...")
    expect(tourText).toContain("100 requests a minute")
    expect(tourText).toContain("RFC 9457")
    expect(preferenceScript).toContain("/preference-center?token=$TOKEN")
  })

  it("runs top to bottom against npm start on a new data folder", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "roster-tour-"))
    try {
      const server = await start("start", { DATA_DIR: dataDir })
      try {
        const key = server.output().match(/svc_test_[0-9A-Za-z]{32,}/)?.[0]
        expect(key).toBeDefined()
        const port = new URL(server.url).port
        const script = `${tourScript}\necho "--- the preference center"\n${preferenceScript}`
          .replace("export KEY=svc_test_...", `export KEY=${key}`)
          .replaceAll("localhost:3000", `127.0.0.1:${port}`)
        const result = await bash(script, {})
        expect(result.code, result.stderr + result.stdout).toBe(0)
        expect(result.stdout).toContain("\"email\":\"ada@example.com\"")
        expect(result.stdout).toContain("a subscriber with email ADA@example.com already exists")
        expect(result.stdout).toContain("must contain exactly one @")
        expect(result.stdout).toMatch(/x-total-count: 6/i)
        expect(result.stdout).toContain("\"email\":\"reader2@example.com\"")
        expect(result.stdout).toContain("\"status\":\"unsubscribed\"")
        expect(result.stdout).toContain("\"name\":\"News\"")
        const [tour, preferences] = result.stdout.split("--- the preference center\n")
        expect(tour).toMatch(/204\n204\n$/)
        const gone = await fetch(`${server.url}/api/v1/subscribers/by-email/ada@example.com`, { headers: { "x-api-key": key! } })
        expect(gone.status).toBe(404)
        // The preference center's block: a link for a reader the tour left, and the view it opens.
        const [link, view] = preferences!.trim().split("\n").map((line) => JSON.parse(line))
        expect(link.url).toContain("/preference-center?token=")
        expect(view).toMatchObject({ email: "reader1@example.com", status: "active", subscribed_tags: [] })
        expect(view.available_tags.map((tag: { name: string }) => tag.name).sort()).toEqual(["News", "Weekly digest"])
      } finally {
        await server.stop()
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 120_000)
})
