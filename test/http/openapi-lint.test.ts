import { spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { call, startHttpServer } from "../support/http-server.js"

/**
 * The OpenAPI document of each wire form is valid as Redocly's linter reads it, with the rules of
 * `redocly.yaml` (whose exceptions say why), and every `$ref` in it resolves.
 */

const root = fileURLToPath(new URL("../..", import.meta.url))

const redoclyLint = (file: string) =>
  new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(process.execPath, [join(root, "node_modules/@redocly/cli/bin/cli.js"), "lint", "--config", join(root, "redocly.yaml"), file], {
      cwd: root,
      env: { PATH: process.env.PATH!, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" }
    })
    let output = ""
    child.stdout.on("data", (chunk) => (output += chunk))
    child.stderr.on("data", (chunk) => (output += chunk))
    child.on("close", (code) => resolve({ code, output }))
  })

/** Every `$ref` in a document, with where it stands. */
const refsOf = (value: unknown, at = "#"): Array<{ at: string; ref: string }> => {
  if (Array.isArray(value)) return value.flatMap((item, i) => refsOf(item, `${at}/${i}`))
  if (typeof value !== "object" || value === null) return []
  return Object.entries(value).flatMap(([key, item]) =>
    key === "$ref" && typeof item === "string" ? [{ at, ref: item }] : refsOf(item, `${at}/${key}`)
  )
}

const resolves = (document: unknown, ref: string) =>
  ref.startsWith("#/") &&
  ref.slice(2).split("/").reduce<unknown>(
    (node, part) => (node as Record<string, unknown> | undefined)?.[part.replaceAll("~1", "/").replaceAll("~0", "~")],
    document
  ) !== undefined

describe.each(["reference", "overview"] as const)("the OpenAPI document of the %s form", (form) => {
  it("resolves every $ref and passes redocly lint", async () => {
    const server = await startHttpServer({ form })
    const folder = mkdtempSync(join(tmpdir(), "roster-openapi-"))
    try {
      const document = (await call(server, "GET", "/openapi.json")).body
      expect(refsOf(document).filter(({ ref }) => !resolves(document, ref))).toEqual([])
      const file = join(folder, `${form}.json`)
      writeFileSync(file, JSON.stringify(document))
      const lint = await redoclyLint(file)
      expect(lint.output).toContain("Woohoo! Your API description is valid.")
      expect(lint.code, lint.output).toBe(0)
    } finally {
      rmSync(folder, { recursive: true, force: true })
      await server.close()
    }
  }, 60_000)
})
