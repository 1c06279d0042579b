import { MIN_SIGNING_SECRET_BYTES } from "@roster/domain"
import { Effect, Layer, Option, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { link, mkdir, readFile, stat, unlink, writeFile } from "node:fs/promises"
import * as path from "node:path"
import { makeJoseTokenSigner, SigningSecretError } from "./jose-token-signer.js"

export const SESSION_SECRET_FILE = "session-secret"

/** Random bytes of a generated secret; the file holds them as base64url text. */
const GENERATED_SECRET_BYTES = 32

const errorCode = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | undefined)?.code

const describe = (error: unknown): string => errorCode(error) ?? (error instanceof Error ? error.message : String(error))

const encoder = new TextEncoder()

/** A file that holds no secret: one an interrupted start of an older release left behind. */
class EmptySecretFile {
  readonly _tag = "EmptySecretFile"
}

const readSecretFile = (file: string) =>
  Effect.tryPromise({
    try: () => readFile(file, "utf8"),
    catch: (error) => new SigningSecretError({ reason: `cannot read ${file}: ${describe(error)}` })
  }).pipe(
    Effect.map((text) => text.trim()),
    Effect.filterOrFail((text) => text.length > 0, () => new EmptySecretFile()),
    Effect.filterOrFail(
      (text) => encoder.encode(text).byteLength >= MIN_SIGNING_SECRET_BYTES,
      () =>
        new SigningSecretError({
          reason: `${file} holds fewer than ${MIN_SIGNING_SECRET_BYTES} bytes; delete it and a new secret will be generated`
        })
    )
  )

/** A secret file that others may read is still used, with a warning. */
const warnIfShared = (file: string) =>
  Effect.tryPromise(() => stat(file)).pipe(
    Effect.flatMap((info) =>
      (info.mode & 0o077) === 0
        ? Effect.void
        : Effect.logWarning(`${file} can be read by other users of this machine; restrict it with chmod 600`)
    ),
    Effect.ignore
  )

/**
 * Puts `text` in `file` whole or not at all, unless `file` exists: written to a file of this
 * process first, then linked into place (which fails when the name is taken). Whether it did.
 */
const createWhole = (file: string, text: string) =>
  Effect.acquireUseRelease(
    Effect.sync(() => `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`),
    (draft) =>
      Effect.tryPromise({
        try: async () => {
          await writeFile(draft, text, { flag: "wx", mode: 0o600 })
          await link(draft, file)
          return true
        },
        catch: (error) => error
      }).pipe(
        Effect.catchAll((error) =>
          errorCode(error) === "EEXIST"
            ? Effect.succeed(false)
            : new SigningSecretError({ reason: `cannot create ${file}: ${describe(error)}` })
        )
      ),
    (draft) => Effect.promise(() => unlink(draft).catch(() => undefined))
  )

/**
 * The secret kept in `file`, made on first use: 32 random bytes as base64url, written with mode
 * 0600. The file appears whole or not at all, so a start that stops half-way leaves nothing that
 * stops the next one, and two processes starting at once end up with the same secret (the one
 * that loses the race reads the winner's). An empty file, from an older release's interrupted
 * start, is replaced. The secret is the file's text, so it can be moved to SESSION_SECRET as it is
 * without ending any session.
 */
export const loadOrCreateSecretFile = (file: string): Effect.Effect<Uint8Array, SigningSecretError> =>
  Effect.gen(function*() {
    yield* Effect.tryPromise({
      try: () => mkdir(path.dirname(file), { recursive: true, mode: 0o700 }),
      catch: (error) => new SigningSecretError({ reason: `cannot create ${path.dirname(file)}: ${describe(error)}` })
    })
    for (let attempt = 0; attempt < 3; attempt++) {
      const generated = randomBytes(GENERATED_SECRET_BYTES).toString("base64url")
      if (yield* createWhole(file, `${generated}\n`)) {
        yield* Effect.logInfo(`generated a session secret in ${file}; set SESSION_SECRET to choose your own`)
        return encoder.encode(generated)
      }
      const existing = yield* Effect.either(readSecretFile(file))
      if (existing._tag === "Right") {
        yield* warnIfShared(file)
        return encoder.encode(existing.right)
      }
      if (existing.left._tag === "SigningSecretError") return yield* existing.left
      yield* Effect.logWarning(`${file} is empty (a start stopped half-way); a new secret replaces it`)
      yield* Effect.promise(() => unlink(file).catch(() => undefined))
    }
    return yield* new SigningSecretError({ reason: `cannot create ${file}: it keeps being replaced by another process` })
  })

/** Where the session secret comes from: a configured one, else a file made once under `dataDir`. */
export interface SessionSecretSource {
  /** SESSION_SECRET, already checked to be long enough. */
  readonly configured: Option.Option<Redacted.Redacted<string>>
  readonly dataDir: string
}

/**
 * The session secret: the configured one when given, else the one generated once into
 * `${dataDir}/session-secret`.
 */
export const readSessionSecret = (source: SessionSecretSource): Effect.Effect<Uint8Array, SigningSecretError> =>
  Option.match(source.configured, {
    onSome: (secret) => Effect.succeed(encoder.encode(Redacted.value(secret))),
    onNone: () => loadOrCreateSecretFile(path.join(source.dataDir, SESSION_SECRET_FILE))
  })

/** Tokens signed with the session secret. */
export const makeTokenSignerLive = (source: SessionSecretSource) =>
  Layer.unwrapEffect(Effect.map(readSessionSecret(source), makeJoseTokenSigner))
