import { Outbox, OrganizationRepository, SubscriberIntake, SubscriberRepository, UnitOfWork } from "@roster/application"
import { Effect, Layer } from "effect"

class NoRoom {
  readonly _tag = "NoRoom"
}

/** The intake over the memory store's own ports, in one of its transactions. */
export const MemorySubscriberIntakeLive = Layer.effect(
  SubscriberIntake,
  Effect.gen(function*() {
    const subscribers = yield* SubscriberRepository
    const organizations = yield* OrganizationRepository
    const outbox = yield* Outbox
    const unitOfWork = yield* UnitOfWork
    return SubscriberIntake.of({
      admit: (subscriber, events, max) =>
        unitOfWork.transaction(Effect.gen(function*() {
          yield* subscribers.insert(subscriber)
          yield* outbox.record(events)
          if (!(yield* organizations.reserveSubscriberSlots(subscriber.organizationId, 1, max))) yield* Effect.fail(new NoRoom())
        })).pipe(
          Effect.as(true),
          Effect.catchTag("NoRoom", () => Effect.succeed(false))
        )
    })
  })
)
