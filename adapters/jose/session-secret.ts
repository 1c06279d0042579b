import { MIN_SIGNING_SECRET_BYTES } from "@roster/domain"
import { Effect, Layer, Option, Redacted, Schedule } from "effect"
import { randomBytes } from "node:crypto"
import { mkdir, readFile, stat, writeFile } from "node:fs/promises"
import * as path from "node:path"
import { makeJoseTokenSigner, SigningSecretError } from "./jose-token-signer.js"

export const SESSION_SECRET_FILE = "session-secret"

/** Random bytes of a generated secret; the file holds them as base64url text. */
const GENERATED_SECRET_BYTES = 32

const errorCode = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | undefined)?.code

const describe = (error: unknown): string => errorCode(error) ?? (error instanceof Error ? error.message : String(error))

const encoder = new TextEncoder()

/** Another first start has created the file and has not written it yet. */
class NotYetWritten {
  readonly _tag = "NotYetWritten"
}

const readSecretFile = (file: string) =>
  Effect.tryPromise({
    try: () => readFile(file, "utf8"),
    catch: (error) => new SigningSecretError({ reason: `cannot read ${file}: ${describe(error)}` })
  }).pipe(
    Effect.map((text) => text.trim()),
    Effect.filterOrFail((text) => text.length > 0, () => new NotYetWritten()),
    // A concurrent first start writes the file just after creating it: give it a moment.
    Effect.retry({ while: (e) => e._tag === "NotYetWritten", schedule: Schedule.spaced("20 millis"), times: 50 }),
    Effect.catchTag("NotYetWritten", () =>
      new SigningSecretError({ reason: `${file} is empty; delete it and a new secret will be generated` })),
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
 * The secret kept in `file`, made on first use: 32 random bytes as base64url, written with mode
 * 0600 by an exclusive create, so that two processes starting at once end up with the same secret
 * (the one that loses the race reads the winner's). The secret is the file's text, so it can be
 * moved to SESSION_SECRET as it is without ending any session.
 */
export const loadOrCreateSecretFile = (file: string): Effect.Effect<Uint8Array, SigningSecretError> =>
  Effect.gen(function*() {
    yield* Effect.tryPromise({
      try: () => mkdir(path.dirname(file), { recursive: true, mode: 0o700 }),
      catch: (error) => new SigningSecretError({ reason: `cannot create ${path.dirname(file)}: ${describe(error)}` })
    })
    const generated = randomBytes(GENERATED_SECRET_BYTES).toString("base64url")
    const created = yield* Effect.tryPromise({
      try: () => writeFile(file, `${generated}\n`, { flag: "wx", mode: 0o600 }).then(() => true),
      catch: (error) => error
    }).pipe(
      Effect.catchAll((error) =>
        errorCode(error) === "EEXIST"
          ? Effect.succeed(false)
          : new SigningSecretError({ reason: `cannot create ${file}: ${describe(error)}` })
      )
    )
    if (created) {
      yield* Effect.logInfo(`generated a session secret in ${file}; set SESSION_SECRET to choose your own`)
      return encoder.encode(generated)
    }
    yield* warnIfShared(file)
    return encoder.encode(yield* readSecretFile(file))
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
