import { mkdir } from "node:fs/promises"
import { Unpack } from "tar"

/** Entries of a template that are written: files and directories, nothing that points elsewhere. */
const writable = new Set(["File", "OldFile", "ContiguousFile", "Directory"])

/** `PG_VERSION` at the top, by which PGlite knows that a directory holds a database. */
const isVersion = (path: string) => path.replace(/^\/+/, "") === "PG_VERSION"

/**
 * Unpacks the entries of `tarball` that `take` keeps under `directory`; fails naming the first
 * entry it cannot write as it is: a link or a device, a path that would leave the directory (or
 * any entry that tar itself warns of), a tarball cut short.
 */
const unpack = (tarball: Uint8Array, directory: string, take: (path: string) => boolean): Promise<void> =>
  new Promise((resolve, reject) => {
    const problems: Array<string> = []
    const stream = new Unpack({
      cwd: directory,
      // Nothing already in the directory is replaced: an entry that meets it is refused.
      keep: true,
      filter: (path, entry) => {
        const type = "type" in entry ? entry.type : "File"
        if (!writable.has(type)) {
          problems.push(`A template entry is neither a file nor a directory: ${path}`)
          return false
        }
        return take(path)
      },
      // Leading slashes are dropped from paths (PGlite writes its entries as `/base/...`); anything else stops it.
      onwarn: (code, message) => {
        if (code !== "TAR_ENTRY_INFO") problems.push(`A template entry cannot be written (${code}): ${String(message)}`)
      }
    })
    stream.on("error", (error: Error) => reject(new Error(`The template cannot be read: ${error.message}`)))
    stream.on("close", () => (problems.length === 0 ? resolve() : reject(new Error(problems[0]))))
    stream.end(Buffer.from(tarball.buffer, tarball.byteOffset, tarball.byteLength))
  })

/**
 * Writes the files and directories of a tarball (as PGlite dumps a database's directory) under
 * `directory`, with tar (node-tar). `PG_VERSION` is written last, in a pass of its own once every
 * other entry is written: a directory left half written (the process stopped meanwhile, or an
 * entry was refused) is not taken for a database.
 */
export const writeTemplateFiles = async (tarball: Uint8Array, directory: string): Promise<void> => {
  await mkdir(directory, { recursive: true })
  let holdsVersion = false
  await unpack(tarball, directory, (path) => {
    if (!isVersion(path)) return true
    holdsVersion = true
    return false
  })
  if (!holdsVersion) throw new Error("The template holds no database (no PG_VERSION)")
  await unpack(tarball, directory, isVersion)
}
