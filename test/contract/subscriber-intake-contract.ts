import { assert, expect, layer } from "@effect/vitest"
import { OrganizationRepository, Outbox, SubscriberIntake, SubscriberRepository, UnitOfWork } from "@roster/application"
import { DomainEvent, type OrganizationId } from "@roster/domain"
import { Effect, Option } from "effect"
import { aSubscriber, anEvent, givenOrganization, type PersistenceLayer } from "./fixtures.js"

const countOf = (id: OrganizationId) =>
  Effect.flatMap(OrganizationRepository, (organizations) =>
    Effect.map(organizations.findById(id), (found) => Option.getOrThrow(found).subscriberCount))

export const subscriberIntakeContract = (persistence: PersistenceLayer) =>
  layer(persistence)("SubscriberIntake", (it) => {
    it.effect("admits a subscriber with its events, counted, in the order the events were given", () =>
      Effect.gen(function*() {
        const intake = yield* SubscriberIntake
        const organization = yield* givenOrganization()
        const subscriber = aSubscriber(organization.id)
        const events = [anEvent(organization.id, "subscriber.created", { n: 1 }), anEvent(organization.id, "subscriber.updated", { n: 2 })]
        assert.isTrue(yield* intake.admit(subscriber, events, 10))
        expect(yield* (yield* SubscriberRepository).findById(organization.id, subscriber.id)).toStrictEqual(Option.some(subscriber))
        expect(yield* (yield* Outbox).recorded(organization.id)).toStrictEqual(events)
        expect(yield* countOf(organization.id)).toBe(1)
      }))

    it.effect("admits a subscriber with one event, recorded as it was given", () =>
      Effect.gen(function*() {
        const intake = yield* SubscriberIntake
        const organization = yield* givenOrganization()
        const createdAt = new Date("2026-03-04T05:06:07.891Z")
        const subscriber = aSubscriber(organization.id, { metadata: { plan: "gold", "quote\"d": ["a\\b", 1] }, createdAt })
        const event = new DomainEvent({
          ...anEvent(organization.id, "subscriber.created", { subscriber: { email: subscriber.email }, note: "é\n{}" }),
          occurredAt: createdAt
        })
        assert.isTrue(yield* intake.admit(subscriber, [event], null))
        expect(yield* (yield* SubscriberRepository).findById(organization.id, subscriber.id)).toStrictEqual(Option.some(subscriber))
        expect(yield* (yield* Outbox).recorded(organization.id)).toStrictEqual([event])
        expect(yield* countOf(organization.id)).toBe(1)
      }))

    it.effect("admits nothing past the limit, and counts nothing for a taken email", () =>
      Effect.gen(function*() {
        const intake = yield* SubscriberIntake
        const organization = yield* givenOrganization({ subscriberCount: 2 })
        const first = aSubscriber(organization.id, { email: "ada@example.com" })
        assert.isTrue(yield* intake.admit(first, [anEvent(organization.id)], 3))
        const taken = yield* Effect.flip(intake.admit(aSubscriber(organization.id, { email: "ADA@example.com" }), [anEvent(organization.id)], 3))
        expect(taken._tag).toBe("EmailAlreadyExists")
        const late = aSubscriber(organization.id)
        assert.isFalse(yield* intake.admit(late, [anEvent(organization.id)], 3))
        assert.isTrue(Option.isNone(yield* (yield* SubscriberRepository).findById(organization.id, late.id)))
        expect(yield* (yield* Outbox).recorded(organization.id)).toHaveLength(1)
        expect(yield* countOf(organization.id)).toBe(3)
        assert.isTrue(yield* intake.admit(aSubscriber(organization.id), [anEvent(organization.id)], null))
        expect(yield* countOf(organization.id)).toBe(4)
      }))

    it.effect("joins the transaction it runs in: a rollback takes the subscriber, its events and its count back", () =>
      Effect.gen(function*() {
        const intake = yield* SubscriberIntake
        const organization = yield* givenOrganization()
        const subscriber = aSubscriber(organization.id)
        const exit = yield* Effect.exit((yield* UnitOfWork).transaction(Effect.zipRight(
          intake.admit(subscriber, [anEvent(organization.id)], null),
          Effect.fail("changed my mind" as const)
        )))
        assert.isTrue(exit._tag === "Failure")
        assert.isTrue(Option.isNone(yield* (yield* SubscriberRepository).findById(organization.id, subscriber.id)))
        expect(yield* (yield* Outbox).recorded(organization.id)).toStrictEqual([])
        expect(yield* countOf(organization.id)).toBe(0)
      }))
  })
