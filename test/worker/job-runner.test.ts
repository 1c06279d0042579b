import { describe, expect, it } from "@effect/vitest"
import { type Job, makeWakeUp, runJobs } from "../../apps/worker/job-runner.js"
import { Deferred, Effect, Fiber, Ref, TestClock } from "effect"

/** A job whose batches find what `found` says, one number per batch (then nothing). */
const countingJob = (found: Array<number>, options: Partial<Job> = {}) =>
  Effect.map(Ref.make(0), (runs) => ({
    runs,
    job: {
      name: "counting",
      run: Ref.updateAndGet(runs, (n) => n + 1).pipe(Effect.map((n) => found[n - 1] ?? 0)),
      batchSize: 10,
      lanes: 1,
      idleMs: 1_000,
      ...options
    } satisfies Job
  }))

describe("the job runner", () => {
  it.effect("runs the next batch at once after a full one, and pauses after a short one", () =>
    Effect.gen(function*() {
      const { job, runs } = yield* countingJob([10, 10, 3])
      const runner = yield* Effect.fork(runJobs([job]))
      yield* TestClock.adjust(0)
      expect(yield* Ref.get(runs)).toBe(3)
      yield* TestClock.adjust(999)
      expect(yield* Ref.get(runs)).toBe(3)
      yield* TestClock.adjust(1)
      expect(yield* Ref.get(runs)).toBe(4)
      yield* Fiber.interrupt(runner)
    }))

  it.effect("a wake-up ends the pause at once, for every lane waiting on it", () =>
    Effect.gen(function*() {
      const wakeUp = yield* makeWakeUp
      const { job, runs } = yield* countingJob([], { idleMs: 60_000, lanes: 2, wake: wakeUp.wait })
      const runner = yield* Effect.fork(runJobs([job]))
      yield* TestClock.adjust(0)
      expect(yield* Ref.get(runs)).toBe(2)
      yield* wakeUp.notify
      yield* TestClock.adjust(0)
      const woken = yield* Ref.get(runs)
      expect(woken).toBeGreaterThanOrEqual(4)
      yield* TestClock.adjust(59_999)
      expect(yield* Ref.get(runs)).toBe(woken)
      yield* Fiber.interrupt(runner)
    }))

  it.effect("a wake-up that comes during a batch ends the pause after it", () =>
    Effect.gen(function*() {
      const wakeUp = yield* makeWakeUp
      const gate = yield* Deferred.make<void>()
      const runs = yield* Ref.make(0)
      const job: Job = {
        name: "gated",
        run: Ref.updateAndGet(runs, (n) => n + 1).pipe(
          Effect.tap((n) => n === 1 ? Deferred.await(gate) : Effect.void),
          Effect.as(0)
        ),
        batchSize: 10,
        lanes: 1,
        idleMs: 60_000,
        wake: wakeUp.wait
      }
      const runner = yield* Effect.fork(runJobs([job]))
      yield* TestClock.adjust(0)
      yield* wakeUp.notify
      yield* Deferred.succeed(gate, undefined)
      yield* TestClock.adjust(0)
      expect(yield* Ref.get(runs)).toBe(2)
      yield* Fiber.interrupt(runner)
    }))

  it.effect("while batches find nothing the pause doubles up to its bound, and work resets it", () =>
    Effect.gen(function*() {
      const { job, runs } = yield* countingJob([0, 0, 0, 0, 0, 1], { idleMs: 100, maxIdleMs: 400 })
      const runner = yield* Effect.fork(runJobs([job]))
      const runsAfter = (ms: number) => Effect.zipRight(TestClock.adjust(ms), Ref.get(runs))
      expect(yield* runsAfter(0)).toBe(1)
      expect(yield* runsAfter(100)).toBe(2)
      expect(yield* runsAfter(199)).toBe(2)
      expect(yield* runsAfter(1)).toBe(3)
      expect(yield* runsAfter(400)).toBe(4)
      expect(yield* runsAfter(400)).toBe(5)
      expect(yield* runsAfter(400)).toBe(6)
      // The sixth found one item: the next pause is the shortest again.
      expect(yield* runsAfter(100)).toBe(7)
      yield* Fiber.interrupt(runner)
    }))

  it.effect("runs each lane of each job side by side", () =>
    Effect.gen(function*() {
      const started = yield* Ref.make(0)
      const gate = yield* Deferred.make<void>()
      const blocking = (name: string, lanes: number): Job => ({
        name,
        run: Ref.update(started, (n) => n + 1).pipe(Effect.zipRight(Deferred.await(gate)), Effect.as(0)),
        batchSize: 10,
        lanes,
        idleMs: 1_000
      })
      const runner = yield* Effect.fork(runJobs([blocking("a", 3), blocking("b", 1)]))
      yield* TestClock.adjust(0)
      expect(yield* Ref.get(started)).toBe(4)
      yield* Fiber.interrupt(runner)
    }))

  it.effect("a failing batch is logged and tried again after a pause that grows", () =>
    Effect.gen(function*() {
      const attempts = yield* Ref.make(0)
      const job: Job = {
        name: "flaky",
        run: Ref.updateAndGet(attempts, (n) => n + 1).pipe(
          Effect.flatMap((n) => n <= 3 ? Effect.die(new Error("database unavailable")) : Effect.succeed(0))
        ),
        batchSize: 10,
        lanes: 1,
        idleMs: 60_000
      }
      const runner = yield* Effect.fork(runJobs([job]))
      yield* TestClock.adjust(0)
      expect(yield* Ref.get(attempts)).toBe(1)
      yield* TestClock.adjust(1_000)
      expect(yield* Ref.get(attempts)).toBe(2)
      yield* TestClock.adjust(1_999)
      expect(yield* Ref.get(attempts)).toBe(2)
      yield* TestClock.adjust(1)
      expect(yield* Ref.get(attempts)).toBe(3)
      yield* TestClock.adjust(4_000)
      expect(yield* Ref.get(attempts)).toBe(4)
      yield* Fiber.interrupt(runner)
    }))

  it.effect("stopping waits for the batch in hand, and starts no other", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const finished = yield* Ref.make(0)
      const job: Job = {
        name: "slow",
        run: Deferred.await(gate).pipe(Effect.zipRight(Ref.updateAndGet(finished, (n) => n + 1)), Effect.uninterruptible),
        batchSize: 1,
        lanes: 1,
        idleMs: 0
      }
      const runner = yield* Effect.fork(runJobs([job]))
      yield* TestClock.adjust(0)
      const stopping = yield* Effect.fork(Fiber.interrupt(runner))
      yield* TestClock.adjust(0)
      expect(stopping.unsafePoll()).toBeNull()
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(stopping)
      expect(yield* Ref.get(finished)).toBe(1)
    }))
})
