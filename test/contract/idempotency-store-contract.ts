import { expect, layer } from "@effect/vitest"
import { IdempotencyStore, type StoredResponse } from "@roster/application"
import { Effect, type Layer } from "effect"
import { randomUUID } from "node:crypto"

/** A key of its own for each test, so tests never see each other's records. */
const aKey = () => `idempotency:contract:${randomUUID()}`

const LOCK_MS = 60_000
const RETAIN_MS = 60_000

const created: StoredResponse = {
  status: 201,
  headers: { "content-type": "application/json", location: "/api/v1/subscribers/1" },
  body: JSON.stringify({ id: "1", email: "jürgen@example.com", note: "quotes \" and\nlines" })
}

/** What every idempotency store does, on real time: short locks and retentions really run out. */
export const idempotencyStoreContract = (store: Layer.Layer<IdempotencyStore, unknown>) =>
  layer(store, { excludeTestServices: true })("IdempotencyStore", (it) => {
    it.effect("the first claim of a key is granted; later ones are told it runs, with the first fingerprint", () =>
      Effect.gen(function*() {
        const store = yield* IdempotencyStore
        const key = aKey()
        expect(yield* store.claim(key, "POST /subscribers a", LOCK_MS)).toEqual({ _tag: "Claimed" })
        expect(yield* store.claim(key, "POST /subscribers a", LOCK_MS)).toEqual({
          _tag: "Running",
          fingerprint: "POST /subscribers a"
        })
        expect(yield* store.claim(key, "POST /subscribers b", LOCK_MS)).toEqual({
          _tag: "Running",
          fingerprint: "POST /subscribers a"
        })
      }))

    it.effect("a completed key answers its stored response, exactly as it was kept", () =>
      Effect.gen(function*() {
        const store = yield* IdempotencyStore
        const key = aKey()
        yield* store.claim(key, "POST /subscribers a", LOCK_MS)
        yield* store.complete(key, "POST /subscribers a", created, RETAIN_MS)
        expect(yield* store.claim(key, "POST /subscribers a", LOCK_MS)).toEqual({
          _tag: "Completed",
          fingerprint: "POST /subscribers a",
          response: created
        })
        expect(yield* store.claim(key, "POST /subscribers b", LOCK_MS)).toMatchObject({
          _tag: "Completed",
          fingerprint: "POST /subscribers a"
        })
      }))

    it.effect("a released key may be claimed again", () =>
      Effect.gen(function*() {
        const store = yield* IdempotencyStore
        const key = aKey()
        yield* store.claim(key, "POST /subscribers a", LOCK_MS)
        yield* store.release(key)
        expect(yield* store.claim(key, "POST /subscribers a", LOCK_MS)).toEqual({ _tag: "Claimed" })
      }))

    it.effect("keys are kept apart", () =>
      Effect.gen(function*() {
        const store = yield* IdempotencyStore
        const [first, second] = [aKey(), aKey()]
        yield* store.claim(first, "POST /subscribers a", LOCK_MS)
        yield* store.complete(first, "POST /subscribers a", created, RETAIN_MS)
        expect(yield* store.claim(second, "POST /subscribers a", LOCK_MS)).toEqual({ _tag: "Claimed" })
        yield* store.release(second)
        expect(yield* store.claim(first, "POST /subscribers a", LOCK_MS)).toMatchObject({ _tag: "Completed" })
      }))

    it.effect("of 20 claims of one key at the same moment exactly one is granted", () =>
      Effect.gen(function*() {
        const store = yield* IdempotencyStore
        const key = aKey()
        const claims = yield* Effect.all(
          Array.from({ length: 20 }, (_, i) => store.claim(key, `POST /subscribers ${i}`, LOCK_MS)),
          { concurrency: "unbounded" }
        )
        expect(claims.filter((c) => c._tag === "Claimed")).toHaveLength(1)
        const winner = claims.findIndex((c) => c._tag === "Claimed")
        for (const claim of claims.filter((c) => c._tag !== "Claimed")) {
          expect(claim).toEqual({ _tag: "Running", fingerprint: `POST /subscribers ${winner}` })
        }
      }))

    it.effect("a kept response is forgotten when its retention ends", () =>
      Effect.gen(function*() {
        const store = yield* IdempotencyStore
        const key = aKey()
        yield* store.claim(key, "POST /subscribers a", LOCK_MS)
        yield* store.complete(key, "POST /subscribers a", created, 200)
        expect((yield* store.claim(key, "POST /subscribers a", LOCK_MS))._tag).toBe("Completed")
        yield* Effect.sleep(300)
        expect(yield* store.claim(key, "POST /subscribers a", LOCK_MS)).toEqual({ _tag: "Claimed" })
      }))

    it.effect("a request that never finishes frees its key when the lock runs out", () =>
      Effect.gen(function*() {
        const store = yield* IdempotencyStore
        const key = aKey()
        yield* store.claim(key, "POST /subscribers a", 200)
        expect((yield* store.claim(key, "POST /subscribers a", 200))._tag).toBe("Running")
        yield* Effect.sleep(300)
        expect(yield* store.claim(key, "POST /subscribers b", LOCK_MS)).toEqual({ _tag: "Claimed" })
        expect(yield* store.claim(key, "POST /subscribers a", LOCK_MS)).toEqual({
          _tag: "Running",
          fingerprint: "POST /subscribers b"
        })
      }))
  })
