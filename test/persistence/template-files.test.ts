import { afterEach, describe, expect, it } from "vitest"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Header } from "tar"
import { writeTemplateFiles } from "../../adapters/postgres/template-files.js"

/** One tar entry: its header (as tar writes it, checksum included) and its data, padded to whole blocks. */
const entry = (path: string, type: "File" | "Directory" | "SymbolicLink", data = "") => {
  const header = Buffer.alloc(512)
  new Header({ path, type, size: Buffer.byteLength(data), mode: type === "Directory" ? 0o750 : 0o600, linkpath: type === "SymbolicLink" ? "/etc/passwd" : "" })
    .encode(header, 0)
  const body = Buffer.alloc(Math.ceil(Buffer.byteLength(data) / 512) * 512)
  body.write(data)
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
      tarball(entry("/PG_VERSION", "File", "17\n"), entry("/base", "Directory"), entry("/base/1/2", "File", "x".repeat(700)), entry("/pg_wal/", "Directory")),
      directory
    )
    expect(readdirSync(directory).sort()).toStrictEqual(["PG_VERSION", "base", "pg_wal"])
    expect(readFileSync(join(directory, "PG_VERSION"), "utf8")).toBe("17\n")
    expect(readFileSync(join(directory, "base/1/2"), "utf8")).toBe("x".repeat(700))
  })

  it("are refused, before PG_VERSION is written, where an entry is neither a file nor a directory", async () => {
    const directory = fresh()
    await expect(writeTemplateFiles(tarball(entry("PG_VERSION", "File", "17\n"), entry("link", "SymbolicLink")), directory))
      .rejects.toThrow("A template entry is neither a file nor a directory: link")
    expect(existsSync(join(directory, "PG_VERSION"))).toBe(false)
  })

  it("are refused where an entry would leave the directory", async () => {
    const directory = fresh()
    await expect(writeTemplateFiles(tarball(entry("PG_VERSION", "File", "17\n"), entry("../outside", "File", "x")), directory))
      .rejects.toThrow("A template entry cannot be written (TAR_ENTRY_ERROR)")
    expect(existsSync(join(directory, "..", "outside"))).toBe(false)
  })

  it("are refused where the tarball is cut short, or holds no database", async () => {
    const directory = fresh()
    const [header] = entry("base/1", "File", "x".repeat(700))
    await expect(writeTemplateFiles(new Uint8Array(Buffer.concat([header!, Buffer.alloc(512)])), directory))
      .rejects.toThrow("The template cannot be read: TAR_BAD_ARCHIVE: Truncated input")
    expect(existsSync(join(directory, "PG_VERSION"))).toBe(false)
    await expect(writeTemplateFiles(tarball(entry("base", "Directory")), directory))
      .rejects.toThrow("The template holds no database (no PG_VERSION)")
  })
})
