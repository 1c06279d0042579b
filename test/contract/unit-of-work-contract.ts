import { assert, expect, layer } from "@effect/vitest"
import {
  DatabaseHealth,
  OrganizationRepository,
  Outbox,
  SubscriberRepository,
  TagAssignments,
  TagRepository,
  UnitOfWork
} from "@roster/application"
import type { Organization, Tag } from "@roster/domain"
import { Deferred, Effect, Exit, Fiber, Option } from "effect"
import { aSubscriber, aTag, anEvent, givenOrganization, givenTag, instant, type PersistenceLayer } from "./fixtures.js"

/** What the tests look at after a transaction: rows, counters and events of one organization. */
const stateOf = (organization: Organization, tag: Tag) =>
  Effect.gen(function*() {
    const [subscribers, tags, organizations, outbox] = [
      yield* SubscriberRepository,
      yield* TagRepository,
      yield* OrganizationRepository,
      yield* Outbox
    ]
    return {
      subscribers: yield* subscribers.count(organization.id, {}),
      tags: yield* tags.count(organization.id),
      carriers: Option.getOrThrow(yield* tags.findById(organization.id, tag.id)).subscriberCount,
      reserved: Option.getOrThrow(yield* organizations.findById(organization.id)).subscriberCount,
      events: (yield* outbox.recorded(organization.id)).length
    }
  })

/** One write through every repository: a subscriber with a tag, a new tag, a reserved slot, an event. */
const writeEverything = (organization: Organization, tag: Tag) =>
  Effect.gen(function*() {
    const subscriber = aSubscriber(organization.id)
    yield* (yield* SubscriberRepository).insert(subscriber)
    yield* (yield* TagAssignments).attach(organization.id, subscriber.id, [tag.id], instant(1), null)
    yield* (yield* TagRepository).insert(aTag(organization.id), null)
    yield* (yield* OrganizationRepository).reserveSubscriberSlots(organization.id, 1, null)
    yield* (yield* Outbox).record([anEvent(organization.id)])
    return subscriber
  })

const nothingWritten = { subscribers: 0, tags: 1, carriers: 0, reserved: 0, events: 0 }
const oneOfEverything = { subscribers: 1, tags: 2, carriers: 1, reserved: 1, events: 1 }

export const unitOfWorkContract = (persistence: PersistenceLayer) =>
  layer(persistence)("UnitOfWork", (it) => {
    it.effect("a success commits the writes of every repository and the recorded events", () =>
      Effect.gen(function*() {
        const organization = yield* givenOrganization()
        const tag = yield* givenTag(organization.id)
        yield* (yield* UnitOfWork).transaction(writeEverything(organization, tag))
        expect(yield* stateOf(organization, tag)).toStrictEqual(oneOfEverything)
      }))

    it.effect("a failure rolls back the writes of every repository and the recorded events", () =>
      Effect.gen(function*() {
        const organization = yield* givenOrganization()
        const tag = yield* givenTag(organization.id)
        const exit = yield* (yield* UnitOfWork).transaction(
          Effect.zipRight(writeEverything(organization, tag), Effect.fail("refused" as const))
        ).pipe(Effect.exit)
        expect(exit).toStrictEqual(Exit.fail("refused"))
        expect(yield* stateOf(organization, tag)).toStrictEqual(nothingWritten)
      }))

    it.effect("a defect rolls back as a failure does", () =>
      Effect.gen(function*() {
        const organization = yield* givenOrganization()
        const tag = yield* givenTag(organization.id)
        const exit = yield* (yield* UnitOfWork).transaction(
          Effect.zipRight(writeEverything(organization, tag), Effect.die("broken"))
        ).pipe(Effect.exit)
        assert.isTrue(Exit.isFailure(exit))
        expect(yield* stateOf(organization, tag)).toStrictEqual(nothingWritten)
      }))

    it.effect("an interruption rolls back", () =>
      Effect.gen(function*() {
        const organization = yield* givenOrganization()
        const tag = yield* givenTag(organization.id)
        const written = yield* Deferred.make<void>()
        const fiber = yield* (yield* UnitOfWork).transaction(Effect.gen(function*() {
          yield* writeEverything(organization, tag)
          yield* Deferred.succeed(written, undefined)
          return yield* Effect.never
        })).pipe(Effect.fork)
        yield* Deferred.await(written)
        yield* Fiber.interrupt(fiber)
        expect(yield* stateOf(organization, tag)).toStrictEqual(nothingWritten)
      }))

    it.effect("a nested transaction joins the outer one: the outer failure undoes the inner writes", () =>
      Effect.gen(function*() {
        const unitOfWork = yield* UnitOfWork
        const organization = yield* givenOrganization()
        const tag = yield* givenTag(organization.id)
        const exit = yield* unitOfWork.transaction(
          Effect.zipRight(unitOfWork.transaction(writeEverything(organization, tag)), Effect.fail("refused" as const))
        ).pipe(Effect.exit)
        expect(exit).toStrictEqual(Exit.fail("refused"))
        expect(yield* stateOf(organization, tag)).toStrictEqual(nothingWritten)
      }))

    it.effect("a nested transaction joins the outer one: its failure, once handled, undoes nothing by itself", () =>
      Effect.gen(function*() {
        const unitOfWork = yield* UnitOfWork
        const organization = yield* givenOrganization()
        const tag = yield* givenTag(organization.id)
        yield* unitOfWork.transaction(
          unitOfWork.transaction(Effect.zipRight(writeEverything(organization, tag), Effect.fail("refused" as const))).pipe(
            Effect.catchAll(() => Effect.void)
          )
        )
        expect(yield* stateOf(organization, tag)).toStrictEqual(oneOfEverything)
      }))

    it.effect("a refused insert leaves the transaction usable for what follows", () =>
      Effect.gen(function*() {
        const subscribers = yield* SubscriberRepository
        const organization = yield* givenOrganization()
        const tag = yield* givenTag(organization.id)
        const taken = aSubscriber(organization.id, { email: "taken@example.com" })
        yield* subscribers.insert(taken)
        yield* (yield* UnitOfWork).transaction(Effect.gen(function*() {
          const refused = yield* Effect.flip(subscribers.insert(aSubscriber(organization.id, { email: "TAKEN@example.com" })))
          expect(refused._tag).toBe("EmailAlreadyExists")
          const clash = yield* Effect.flip((yield* TagRepository).insert(aTag(organization.id, { name: tag.name }), null))
          expect(clash._tag).toBe("TagAlreadyExists")
          yield* writeEverything(organization, tag)
        }))
        expect(yield* stateOf(organization, tag)).toStrictEqual({ ...oneOfEverything, subscribers: 2 })
      }))

    it.effect("the database answers its health check", () =>
      Effect.gen(function*() {
        const health = yield* DatabaseHealth
        assert.isTrue(Exit.isSuccess(yield* Effect.exit(health.check)))
        expect(health.name.length).toBeGreaterThan(0)
      }))
  })
