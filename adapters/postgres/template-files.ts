import { mkdir, writeFile } from "node:fs/promises"
import { dirname, join } from "node:path"

const BLOCK = 512

/** A NUL-terminated text field of a tar header. */
const field = (header: Uint8Array, start: number, length: number): string => {
  const bytes = header.subarray(start, start + length)
  const end = bytes.indexOf(0)
  return new TextDecoder().decode(end === -1 ? bytes : bytes.subarray(0, end))
}

/** An entry's path, relative: its leading `/` dropped; one that would leave the directory is refused. */
const relative = (name: string): string => {
  const path = name.replace(/^\/+/, "").replace(/\/+$/, "")
  if (path.split("/").includes("..")) throw new Error(`A template entry leaves its directory: ${name}`)
  return path
}

/**
 * Writes the files and directories of a tarball (ustar, as PGlite dumps a database's directory)
 * under `directory`. `PG_VERSION` at the top, by which PGlite knows a directory holds a database,
 * is written last: a directory left half written (the process stopped meanwhile) is not taken
 * for a database. Fails on any other kind of entry.
 */
export const writeTemplateFiles = async (tar: Uint8Array, directory: string): Promise<void> => {
  let last: { readonly path: string; readonly data: Uint8Array } | undefined
  for (let offset = 0; offset + BLOCK <= tar.length;) {
    const header = tar.subarray(offset, offset + BLOCK)
    const name = field(header, 0, 100)
    if (name === "") break
    const prefix = field(header, 257, 6) === "ustar" ? field(header, 345, 155) : ""
    const path = relative(prefix === "" ? name : `${prefix}/${name}`)
    const size = parseInt(field(header, 124, 12).trim() || "0", 8)
    const type = String.fromCharCode(header[156]!)
    const data = tar.subarray(offset + BLOCK, offset + BLOCK + size)
    if (Number.isNaN(size) || data.length !== size) throw new Error(`A template entry is cut short: ${name}`)
    offset += BLOCK + Math.ceil(size / BLOCK) * BLOCK
    if (type === "5") {
      await mkdir(join(directory, path), { recursive: true })
    } else if (type === "0" || type === "\0") {
      if (path === "PG_VERSION") {
        last = { path, data }
      } else {
        await mkdir(dirname(join(directory, path)), { recursive: true })
        await writeFile(join(directory, path), data)
      }
    } else {
      throw new Error(`A template entry is neither a file nor a directory: ${name}`)
    }
  }
  if (last === undefined) throw new Error("The template holds no database (no PG_VERSION)")
  await writeFile(join(directory, last.path), last.data)
}
