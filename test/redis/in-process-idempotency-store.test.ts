import { describe, expect, it } from "@effect/vitest"
import { IdempotencyStore } from "@roster/application"
import { Effect, TestClock } from "effect"
import {
  IdempotencyEntries,
  makeInProcessIdempotencyStore
} from "../../adapters/in-process/memory-idempotency-store.js"
import { InProcessIdempotencyStoreLive } from "../../adapters/in-process/index.js"

const MINUTE = 60_000
const response = { status: 201, headers: {}, body: "{}" }

const claim = (key: string, lockMs = MINUTE) =>
  Effect.flatMap(IdempotencyStore, (store) => store.claim(key, "POST /subscribers a", lockMs))
const complete = (key: string, retainMs: number) =>
  Effect.flatMap(IdempotencyStore, (store) => store.complete(key, "POST /subscribers a", response, retainMs))

describe("in-process idempotency store", () => {
  it.effect("locks and retention run on the clock", () =>
    Effect.gen(function*() {
      yield* claim("lock")
      yield* TestClock.adjust(MINUTE - 1)
      expect((yield* claim("lock"))._tag).toBe("Running")
      yield* TestClock.adjust(1)
      expect((yield* claim("lock"))._tag).toBe("Claimed")

      yield* complete("kept", 24 * 60 * MINUTE)
      yield* TestClock.adjust(24 * 60 * MINUTE - 1)
      expect((yield* claim("kept"))._tag).toBe("Completed")
      yield* TestClock.adjust(1)
      expect((yield* claim("kept"))._tag).toBe("Claimed")
    }).pipe(Effect.provide(InProcessIdempotencyStoreLive)))

  it.effect("each build of the layer starts empty", () =>
    Effect.gen(function*() {
      yield* claim("key").pipe(Effect.provide(InProcessIdempotencyStoreLive))
      expect((yield* claim("key").pipe(Effect.provide(InProcessIdempotencyStoreLive)))._tag).toBe("Claimed")
    }))

  it.effect("entries that have expired are swept away, so memory is given back", () => {
    const entries = new IdempotencyEntries({ sweepIntervalMs: 1_000 })
    return Effect.gen(function*() {
      for (let i = 0; i < 500; i++) yield* claim(`running-${i}`)
      for (let i = 0; i < 500; i++) yield* complete(`completed-${i}`, MINUTE)
      expect(entries.size).toBe(1_000)
      yield* TestClock.adjust(MINUTE)
      yield* claim("new")
      expect(entries.size).toBe(1)
    }).pipe(Effect.provide(makeInProcessIdempotencyStore(entries)))
  })

  it.effect("entries still kept survive the sweep", () => {
    const entries = new IdempotencyEntries({ sweepIntervalMs: 1_000 })
    return Effect.gen(function*() {
      yield* claim("short", 1_000)
      yield* complete("long", MINUTE)
      yield* TestClock.adjust(2_000)
      yield* claim("another")
      expect(entries.size).toBe(2)
      expect((yield* claim("long"))._tag).toBe("Completed")
    }).pipe(Effect.provide(makeInProcessIdempotencyStore(entries)))
  })

  it.effect("past the cap on keys, the oldest entries are dropped and those requests may run again", () => {
    const entries = new IdempotencyEntries({ maxKeys: 100 })
    return Effect.gen(function*() {
      yield* complete("oldest", MINUTE)
      for (let i = 0; i < 250; i++) yield* claim(`key-${i}`)
      expect(entries.size).toBe(100)
      expect((yield* claim("oldest"))._tag).toBe("Claimed")
      expect((yield* claim("key-249"))._tag).toBe("Running")
      expect(entries.size).toBe(100)
    }).pipe(Effect.provide(makeInProcessIdempotencyStore(entries)))
  })
})
