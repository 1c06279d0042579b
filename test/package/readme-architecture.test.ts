/**
 * The README's architecture section names what the code holds: every service and port the
 * application package exports, every adapter technology and composition root, and no file outside
 * the repository.
 */
import * as application from "@roster/application"
import { readdirSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const root = new URL("../../", import.meta.url)
const readme = readFileSync(fileURLToPath(new URL("README.md", root)), "utf8")
const start = readme.indexOf("\n## Architecture\n")
const section = readme.slice(start, readme.indexOf("\n## ", start + 1))

/** The names of the services and ports the application exports: classes keyed `roster/<Name>`. */
const services = Object.entries(application)
  .filter(([name, value]) => typeof value === "function" && (value as { readonly key?: unknown }).key === `roster/${name}`)
  .map(([name]) => name)

const folders = (path: string) =>
  readdirSync(fileURLToPath(new URL(path, root)), { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name)

describe("the README's architecture section", () => {
  it("names every service and port of the application", () => {
    expect(services.length).toBeGreaterThan(60)
    expect(services).toContain("Subscribers")
    expect(services.filter((name) => !section.includes(`\`${name}\``))).toEqual([])
  })

  it("names no service or port the application does not have", () => {
    const named = [...section.matchAll(/`([A-Z][A-Za-z]+)`/g)].map((match) => match[1]!)
    const known = new Set([...services, "EmailAddress", "Subscriber", "Tag", "WorkerLive"])
    expect(named.filter((name) => !known.has(name))).toEqual([])
  })

  it("names every adapter technology and composition root as the folders hold them", () => {
    expect(folders("adapters/").filter((folder) => !new RegExp(`\\b${folder}\\b`).test(section))).toEqual([])
    expect(folders("apps/").filter((folder) => !section.includes(folder))).toEqual([])
  })

  it("points at no file outside the repository", () => {
    expect(section).not.toMatch(/\]\(\.\.\//)
    expect(section).not.toMatch(/\.\.\/shared\//)
  })
})
