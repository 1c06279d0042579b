import { describe, expect, it } from "@effect/vitest"
import { ApiKeys, Organizations, Outbox, Subscribers, SubscriberRepository } from "@roster/application"
import { EmailAddress, Slug } from "@roster/domain"
import { Effect, Layer, Logger, Option, Ref, Schedule } from "effect"
import { randomUUID } from "node:crypto"
import { MemoryPersistenceLive } from "../../adapters/in-process/index.js"
import { CryptoLive } from "../../adapters/node/index.js"
import { ErasureJob } from "../../apps/worker/erasure-job.js"
import { WorkerSettings } from "../../apps/worker/settings.js"
import { keyFor } from "../application/test-kit.js"

/**
 * The worker's erasure job as the worker runs it, over the use cases in memory, with an outbox
 * that fails the first time the job records the deletion: the batch in hand is rolled back and
 * carried out again on the next run, with nothing lost or done twice.
 */
const failingOnce = (failures: Ref.Ref<number>) =>
  Layer.effect(
    Outbox,
    Effect.map(Outbox, (outbox) =>
      Outbox.of({
        ...outbox,
        record: (events) =>
          events.some((event) => event.type === "subscriber.deleted")
            ? Effect.flatMap(Ref.getAndUpdate(failures, (n) => n + 1), (n) =>
              n === 0 ? Effect.die(new Error("the worker stopped halfway")) : outbox.record(events))
            : outbox.record(events)
      })))

describe("the worker's erasure job", () => {
  it.live("erases a subscriber who asked, resuming a batch that failed halfway, once", () =>
    Effect.gen(function*() {
      const failures = yield* Ref.make(0)
      const base = Layer.mergeAll(MemoryPersistenceLive, CryptoLive)
      const useCases = Layer.mergeAll(
        Subscribers.Default.pipe(Layer.provide(failingOnce(failures))),
        Organizations.Default,
        ApiKeys.Default
      ).pipe(
        Layer.provideMerge(base)
      )
      yield* Effect.gen(function*() {
        const organization = yield* (yield* Organizations).create({ name: "Acme", slug: Slug.make(`acme-${randomUUID()}`) })
        const principal = yield* keyFor(organization.id, ["*"])
        const subscribers = yield* Subscribers
        const { subscriber } = yield* subscribers.create(principal, { email: EmailAddress.make("ada@example.com") })
        const repository = yield* SubscriberRepository
        yield* repository.requestErasure(organization.id, subscriber.id, new Date())

        yield* Layer.buildWithScope(
          ErasureJob.pipe(Layer.provide(Layer.succeed(WorkerSettings, {
            ...WorkerSettings.defaultValue(),
            erasureBatch: 10,
            erasureIdleMs: 20
          }))),
          yield* Effect.scope
        )
        // The first run fails halfway; the runner tries again after a second.
        yield* repository.findById(organization.id, subscriber.id).pipe(
          Effect.repeat({ until: Option.isNone, schedule: Schedule.spaced("50 millis") }),
          Effect.timeout("5 seconds")
        )
        expect(yield* Ref.get(failures)).toBe(2)
        const events = yield* (yield* Outbox).recorded(organization.id)
        expect(events.filter((event) => event.type === "subscriber.deleted")).toHaveLength(1)
        expect(events.find((event) => event.type === "subscriber.created")?.data).toEqual({ subscriber: { id: subscriber.id } })
        expect(yield* repository.claimErasures(10)).toEqual([])
      }).pipe(Effect.provide(useCases), Effect.scoped, Effect.provide(Logger.replace(Logger.defaultLogger, Logger.none)))
    }), 15_000)
})
