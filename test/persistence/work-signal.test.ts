import { describe, expect, it } from "@effect/vitest"
import { WorkSignal } from "@roster/application"
import { Duration, Effect, Layer, Option, Redacted } from "effect"
import { InProcessWorkSignalLive } from "../../adapters/in-process/index.js"
import { makePgClient, PostgresWorkSignalLive } from "../../adapters/postgres/index.js"
import { postgres } from "../support/servers.js"

/**
 * Work signals wake a waiting worker at once: in one process through memory, and across processes
 * through PostgreSQL's LISTEN/NOTIFY (here two connection pools, as two processes have).
 */

const waitAtMost = (signal: WorkSignal["Type"], ms: number) =>
  Effect.timeoutOption(signal.awaitEmailQueued, Duration.millis(ms))

describe("in-process work signals", () => {
  it.live("a signal ends a wait at once, and one given while nobody waits is kept for the next wait", () =>
    Effect.gen(function*() {
      const signal = yield* WorkSignal
      const waiting = yield* Effect.fork(waitAtMost(signal, 2_000))
      yield* Effect.sleep(Duration.millis(20))
      yield* signal.emailQueued
      expect(Option.isSome(yield* waiting.await.pipe(Effect.flatten))).toBe(true)
      yield* signal.emailQueued
      expect(Option.isSome(yield* waitAtMost(signal, 10))).toBe(true)
      expect(Option.isNone(yield* waitAtMost(signal, 50))).toBe(true)
    }).pipe(Effect.provide(InProcessWorkSignalLive)))
})

describe.skipIf(!postgres.available)(`work signals through ${postgres.label}`, () => {
  const process = () =>
    PostgresWorkSignalLive.pipe(Layer.provide(makePgClient(Redacted.make(postgres.url ?? ""))), Layer.orDie)

  it.live("a send in one process wakes a worker waiting in another", () =>
    Effect.gen(function*() {
      const worker = yield* Layer.build(process())
      const api = yield* Layer.build(process())
      const waiter = WorkSignal.pipe(Effect.provide(worker))
      const sender = WorkSignal.pipe(Effect.provide(api))
      const listening = yield* waiter
      // The first wait starts listening; nothing has been said yet.
      expect(Option.isNone(yield* waitAtMost(listening, 300))).toBe(true)
      // Nothing else would end this wait: only the signal can make it Some (the bound catches a hang).
      const waiting = yield* Effect.fork(waitAtMost(listening, 30_000))
      yield* Effect.sleep(Duration.millis(50))
      yield* (yield* sender).emailQueued
      expect(Option.isSome(yield* waiting.await.pipe(Effect.flatten))).toBe(true)
    }).pipe(Effect.scoped))
})
