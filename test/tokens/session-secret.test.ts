import { TokenSigner } from "@roster/application"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Option, Redacted } from "effect"
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import * as path from "node:path"
import {
  makeJoseTokenSigner,
  makeTokenSignerLive,
  readSessionSecret,
  SESSION_SECRET_FILE
} from "../../adapters/jose/index.js"

/** A fresh directory for the test's DATA_DIR, removed afterwards. */
const dataDir = Effect.acquireRelease(
  Effect.promise(() => mkdtemp(path.join(tmpdir(), "roster-secret-"))),
  (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
)

/** No configured secret: the one kept in `dataDir`. */
const fromFile = (dataDir: string) => ({ configured: Option.none(), dataDir })

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes)

const claims = {
  subject: "user-1",
  id: "session-1",
  issuedAt: new Date("2026-11-02T10:00:00Z"),
  expiresAt: new Date("2026-11-09T10:00:00Z")
}
const during = new Date("2026-11-03T10:00:00Z")

describe("the session secret", () => {
  it.effect("SESSION_SECRET is the secret when set", () =>
    Effect.gen(function*() {
      const configured = "a-session-secret-of-more-than-32-characters"
      const token = yield* Effect.flatMap(TokenSigner, (s) => s.sign("session", claims)).pipe(
        Effect.provide(makeTokenSignerLive({
          configured: Option.some(Redacted.make(configured)),
          dataDir: "/nonexistent/never-used"
        }))
      )
      const verified = yield* Effect.flatMap(TokenSigner, (s) => s.verify("session", token, during)).pipe(
        Effect.provide(makeJoseTokenSigner(new TextEncoder().encode(configured)))
      )
      expect(verified.subject).toBe("user-1")
    }))

  it.scopedLive("without SESSION_SECRET, a secret is generated once into DATA_DIR, readable by its owner only", () =>
    Effect.gen(function*() {
      const dir = path.join(yield* dataDir, "not-yet-made")
      const file = path.join(dir, SESSION_SECRET_FILE)
      const first = yield* readSessionSecret(fromFile(dir))
      const info = yield* Effect.promise(() => stat(file))
      expect(info.mode & 0o777).toBe(0o600)
      const stored = (yield* Effect.promise(() => readFile(file, "utf8"))).trim()
      expect(stored).toMatch(/^[A-Za-z0-9_-]{43}$/)
      expect(text(first)).toBe(stored)

      const second = yield* readSessionSecret(fromFile(dir))
      expect(text(second)).toBe(stored)
      expect((yield* Effect.promise(() => stat(file))).mtimeMs).toBe(info.mtimeMs)
    }))

  it.scopedLive("tokens signed before a restart verify after it", () =>
    Effect.gen(function*() {
      const signer = makeTokenSignerLive(fromFile(yield* dataDir))
      const token = yield* Effect.flatMap(TokenSigner, (s) => s.sign("session", claims)).pipe(Effect.provide(signer))
      const verified = yield* Effect.flatMap(TokenSigner, (s) => s.verify("session", token, during)).pipe(
        Effect.provide(signer)
      )
      expect(verified.id).toBe("session-1")
    }))

  it.scopedLive("starts that race to make the secret all end up with the same one", () =>
    Effect.gen(function*() {
      const dir = yield* dataDir
      const secrets = yield* Effect.all(
        Array.from({ length: 8 }, () => readSessionSecret(fromFile(dir))),
        { concurrency: "unbounded" }
      )
      const stored = (yield* Effect.promise(() => readFile(path.join(dir, SESSION_SECRET_FILE), "utf8"))).trim()
      expect(new Set(secrets.map(text))).toEqual(new Set([stored]))
    }))

  it.scopedLive("a secret file too short to sign with is refused, naming the file", () =>
    Effect.gen(function*() {
      const dir = yield* dataDir
      const file = path.join(dir, SESSION_SECRET_FILE)
      yield* Effect.promise(() => writeFile(file, "short\n", { mode: 0o600 }))
      const exit = yield* Effect.exit(readSessionSecret(fromFile(dir)))
      expect(Exit.isFailure(exit)).toBe(true)
      if (Exit.isFailure(exit)) expect(String(exit.cause)).toContain(file)
    }))

  it.scopedLive("an empty secret file (an older release's start that stopped half-way) is replaced by a new secret", () =>
    Effect.gen(function*() {
      const dir = yield* dataDir
      const file = path.join(dir, SESSION_SECRET_FILE)
      yield* Effect.promise(() => writeFile(file, "", { mode: 0o600 }))
      const secret = yield* readSessionSecret(fromFile(dir))
      expect(new TextDecoder().decode(secret)).toBe((yield* Effect.promise(() => readFile(file, "utf8"))).trim())
      expect(secret.byteLength).toBeGreaterThanOrEqual(32)
      expect(yield* readSessionSecret(fromFile(dir))).toStrictEqual(secret)
    }))

  it.scopedLive("leaves no draft beside the secret, whether it made the file or found it", () =>
    Effect.gen(function*() {
      const dir = yield* dataDir
      const [first, second] = yield* Effect.all([readSessionSecret(fromFile(dir)), readSessionSecret(fromFile(dir))], {
        concurrency: 2
      })
      expect(second).toStrictEqual(first)
      expect(yield* Effect.promise(() => readdir(dir))).toStrictEqual([SESSION_SECRET_FILE])
    }))
})
