import { afterEach, describe, expect, it } from "vitest"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { writeTemplateFiles } from "../../adapters/postgres/template-files.js"

/** One tar entry: a ustar header (the fields the template is read by) and its data, padded. */
const entry = (name: string, type: string, data = "") => {
  const header = new Uint8Array(512)
  header.set(new TextEncoder().encode(name), 0)
  header.set(new TextEncoder().encode(Buffer.byteLength(data).toString(8).padStart(11, "0")), 124)
  header[156] = type.charCodeAt(0)
  header.set(new TextEncoder().encode("ustar\u000000"), 257)
  const body = new Uint8Array(Math.ceil(Buffer.byteLength(data) / 512) * 512)
  body.set(new TextEncoder().encode(data))
  return [header, body]
}

const tarball = (...entries: ReadonlyArray<ReadonlyArray<Uint8Array>>) => new Uint8Array(Buffer.concat([...entries.flat(), new Uint8Array(1024)]))

const directories: Array<string> = []
const fresh = () => {
  const directory = mkdtempSync(join(tmpdir(), "roster-template-"))
  directories.push(directory)
  return join(directory, "data")
}
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true })
})

describe("the files of a new embedded database, from its template", () => {
  it("are written under the directory, PG_VERSION among them", async () => {
    const directory = fresh()
    await writeTemplateFiles(
      tarball(entry("/PG_VERSION", "0", "17\n"), entry("/base", "5"), entry("/base/1/2", "0", "x".repeat(700)), entry("/pg_wal/", "5")),
      directory
    )
    expect(readdirSync(directory).sort()).toStrictEqual(["PG_VERSION", "base", "pg_wal"])
    expect(readFileSync(join(directory, "PG_VERSION"), "utf8")).toBe("17\n")
    expect(readFileSync(join(directory, "base/1/2"), "utf8")).toBe("x".repeat(700))
  })

  it("are refused, before PG_VERSION is written, where an entry is neither a file nor a directory", async () => {
    const directory = fresh()
    await expect(writeTemplateFiles(tarball(entry("PG_VERSION", "0", "17\n"), entry("link", "2")), directory))
      .rejects.toThrow("A template entry is neither a file nor a directory: link")
    expect(existsSync(join(directory, "PG_VERSION"))).toBe(false)
  })

  it("are refused where an entry would leave the directory", async () => {
    const directory = fresh()
    await expect(writeTemplateFiles(tarball(entry("../outside", "0", "x")), directory))
      .rejects.toThrow("A template entry leaves its directory: ../outside")
    expect(existsSync(join(directory, "..", "outside"))).toBe(false)
  })

  it("are refused where the tarball is cut short, or holds no database", async () => {
    const directory = fresh()
    const [header] = entry("base/1", "0", "x".repeat(700))
    await expect(writeTemplateFiles(new Uint8Array(Buffer.concat([header!, new Uint8Array(512)])), directory))
      .rejects.toThrow("A template entry is cut short: base/1")
    await expect(writeTemplateFiles(tarball(entry("base", "5")), directory))
      .rejects.toThrow("The template holds no database (no PG_VERSION)")
  })
})
