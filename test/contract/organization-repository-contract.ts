import { assert, expect, layer } from "@effect/vitest"
import { OrganizationRepository, UnitOfWork } from "@roster/application"
import { OrganizationId } from "@roster/domain"
import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import { anOrganization, givenOrganization, type PersistenceLayer } from "./fixtures.js"

const subscriberCountOf = (id: OrganizationId) =>
  Effect.flatMap(OrganizationRepository, (organizations) =>
    Effect.map(organizations.findById(id), (found) => Option.getOrThrow(found).subscriberCount))

export const organizationRepositoryContract = (persistence: PersistenceLayer) =>
  layer(persistence)("OrganizationRepository", (it) => {
    it.effect("stores an organization and finds it by id and by slug", () =>
      Effect.gen(function*() {
        const organizations = yield* OrganizationRepository
        const organization = anOrganization({ tier: "pro", subscriberCount: 3 })
        yield* organizations.insert(organization)
        expect(Option.getOrThrow(yield* organizations.findById(organization.id))).toStrictEqual(organization)
        expect(Option.getOrThrow(yield* organizations.findBySlug(organization.slug))).toStrictEqual(organization)
        assert.isTrue(Option.isNone(yield* organizations.findById(OrganizationId.make(randomUUID()))))
        assert.isTrue(Option.isNone(yield* organizations.findBySlug(`no-${randomUUID()}`)))
      }))

    it.effect("refuses a slug that is taken", () =>
      Effect.gen(function*() {
        const organizations = yield* OrganizationRepository
        const first = yield* givenOrganization()
        const error = yield* Effect.flip(organizations.insert(anOrganization({ slug: first.slug })))
        expect(error._tag).toBe("OrganizationSlugTaken")
        expect(error.slug).toBe(first.slug)
      }))

    it.effect("reserves subscriber slots up to the maximum, and without one when there is none", () =>
      Effect.gen(function*() {
        const organizations = yield* OrganizationRepository
        const organization = yield* givenOrganization()
        assert.isTrue(yield* organizations.reserveSubscriberSlots(organization.id, 3, 5))
        assert.isFalse(yield* organizations.reserveSubscriberSlots(organization.id, 3, 5))
        assert.isTrue(yield* organizations.reserveSubscriberSlots(organization.id, 2, 5))
        assert.isFalse(yield* organizations.reserveSubscriberSlots(organization.id, 1, 5))
        assert.isTrue(yield* organizations.reserveSubscriberSlots(organization.id, 1_000, null))
        expect(yield* subscriberCountOf(organization.id)).toBe(1_005)
        assert.isFalse(yield* organizations.reserveSubscriberSlots(OrganizationId.make(randomUUID()), 1, null))
      }))

    it.effect("releases slots, never below zero", () =>
      Effect.gen(function*() {
        const organizations = yield* OrganizationRepository
        const organization = yield* givenOrganization({ subscriberCount: 4 })
        yield* organizations.releaseSubscriberSlots(organization.id, 3)
        expect(yield* subscriberCountOf(organization.id)).toBe(1)
        yield* organizations.releaseSubscriberSlots(organization.id, 5)
        expect(yield* subscriberCountOf(organization.id)).toBe(0)
      }))

    it.effect("of 20 concurrent reservations against a maximum of 10, exactly 10 succeed", () =>
      Effect.gen(function*() {
        const organizations = yield* OrganizationRepository
        const unitOfWork = yield* UnitOfWork
        const organization = yield* givenOrganization()
        const reserved = yield* Effect.forEach(
          Array.from({ length: 20 }),
          () => unitOfWork.transaction(organizations.reserveSubscriberSlots(organization.id, 1, 10)),
          { concurrency: "unbounded" }
        )
        expect(reserved.filter(Boolean)).toHaveLength(10)
        expect(yield* subscriberCountOf(organization.id)).toBe(10)
      }))
  })
