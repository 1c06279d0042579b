import { Effect, Option, Stream } from "effect"
import { createHash, randomBytes } from "node:crypto"
import { createReadStream } from "node:fs"
import { open, readdir, readFile, rm, stat, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"

/**
 * Files uploaded on the import screen, kept between their preview and the start of their import:
 * in the system's temporary directory, each under a name made from a random id, the organization
 * and the session, so that only the session that uploaded it, in that organization, finds it.
 * A file goes when its import starts, when it is given up, or an hour after it came (whichever
 * process runs then: every upload also clears the ones older than that).
 */

export const KEPT_FOR_MS = 60 * 60 * 1000

const PREFIX = "roster-dashboard-upload-"

/** Whose upload it is: only the same organization and session find it again. */
export interface UploadOwner {
  readonly organizationId: string
  readonly sessionToken: string
}

export interface KeptUpload {
  readonly id: string
  readonly fileName: string | null
  readonly byteSize: number
  /** Its bytes, read from the disk as they are taken. */
  readonly bytes: Stream.Stream<Uint8Array>
}

const isId = (id: string) => /^[0-9a-f]{32}$/.test(id)

const pathOf = (owner: UploadOwner, id: string) =>
  join(
    tmpdir(),
    PREFIX + createHash("sha256").update(`${owner.organizationId}\n${owner.sessionToken}\n${id}`).digest("hex")
  )

const remove = (path: string) =>
  Effect.promise(() => Promise.all([rm(path, { force: true }), rm(`${path}.json`, { force: true })])).pipe(Effect.asVoid)

/** Removes the kept files older than an hour, of every session. */
const clearOld = Effect.promise(async () => {
  const directory = tmpdir()
  const names = (await readdir(directory)).filter((name) => name.startsWith(PREFIX))
  const before = Date.now() - KEPT_FOR_MS
  await Promise.all(names.map(async (name) => {
    const path = join(directory, name)
    const found = await stat(path).catch(() => undefined)
    if (found !== undefined && found.mtimeMs < before) await rm(path, { force: true })
  }))
})

/** The file was larger than `maxBytes`: nothing of it is kept. */
export class KeptTooLarge {
  readonly _tag = "KeptTooLarge"
}

/**
 * Keeps a file as it streams in: its id, and how many bytes it had. A file larger than
 * `maxBytes`, or whose upload breaks off, leaves nothing behind.
 */
export const keepUpload = <E>(
  owner: UploadOwner,
  fileName: string | null,
  content: Stream.Stream<Uint8Array, E>,
  maxBytes: number
): Effect.Effect<{ readonly id: string; readonly byteSize: number }, E | KeptTooLarge> =>
  Effect.gen(function*() {
    yield* clearOld
    const id = randomBytes(16).toString("hex")
    const path = pathOf(owner, id)
    const write = Effect.acquireUseRelease(
      Effect.promise(() => open(path, "wx", 0o600)),
      (file) =>
        Stream.runFoldEffect(content, 0, (size, chunk) =>
          size + chunk.byteLength > maxBytes
            ? Effect.fail(new KeptTooLarge())
            : Effect.as(Effect.promise(() => file.write(chunk)), size + chunk.byteLength)),
      (file) => Effect.promise(() => file.close())
    )
    const byteSize = yield* write.pipe(
      Effect.tap(() => Effect.promise(() => writeFile(`${path}.json`, JSON.stringify({ fileName }), { mode: 0o600 }))),
      Effect.tapError(() => remove(path))
    )
    // Gone after an hour, even if nobody comes back for it.
    yield* Effect.sync(() => setTimeout(() => void Effect.runPromise(remove(path)), KEPT_FOR_MS).unref())
    return { id, byteSize }
  })

/** The upload of this id, if the owner has it still. */
export const keptUpload = (owner: UploadOwner, id: string): Effect.Effect<Option.Option<KeptUpload>> =>
  Effect.promise(async () => {
    if (!isId(id)) return Option.none()
    const path = pathOf(owner, id)
    const found = await stat(path).catch(() => undefined)
    if (found === undefined || found.mtimeMs < Date.now() - KEPT_FOR_MS) return Option.none()
    const about = JSON.parse(await readFile(`${path}.json`, "utf8").catch(() => "{}")) as { readonly fileName?: string | null }
    return Option.some<KeptUpload>({
      id,
      fileName: about.fileName ?? null,
      byteSize: found.size,
      bytes: Stream.suspend(() => Stream.fromAsyncIterable(createReadStream(path), (error) => error)).pipe(
        Stream.map((chunk) => chunk as Uint8Array),
        Stream.orDie
      )
    })
  })

/** Forgets an upload (its import started, or it was given up). */
export const discardUpload = (owner: UploadOwner, id: string): Effect.Effect<void> =>
  isId(id) ? remove(pathOf(owner, id)) : Effect.void
