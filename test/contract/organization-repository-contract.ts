import { assert, expect, layer } from "@effect/vitest"
import { OrganizationRepository, UnitOfWork } from "@roster/application"
import { Organization, OrganizationId } from "@roster/domain"
import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import {
  anEarlierEra,
  anOrganization,
  expectedOrder,
  givenOrganization,
  instant,
  type PersistenceLayer,
  walkOldestFirst
} from "./fixtures.js"

const subscriberCountOf = (id: OrganizationId) =>
  Effect.flatMap(OrganizationRepository, (organizations) =>
    Effect.map(organizations.findById(id), (found) => Option.getOrThrow(found).subscriberCount))

export const organizationRepositoryContract = (persistence: PersistenceLayer) =>
  layer(persistence)("OrganizationRepository", (it) => {
    it.effect("numbers pages of the oldest-first list: `offset` skips that many rows", () =>
      Effect.gen(function*() {
        const repository = yield* OrganizationRepository
        for (let i = 0; i < 5; i++) yield* givenOrganization()
        const all = yield* repository.list({ limit: 100_000 })
        expect(all.length).toBeGreaterThanOrEqual(5)
        for (const offset of [0, 1, all.length - 2, all.length]) {
          expect(yield* repository.list({ offset, limit: 2 })).toStrictEqual(all.slice(offset, offset + 2))
        }
      }))

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

    it.effect("keeps each organization's time zone, UTC until set; none for an organization that does not exist", () =>
      Effect.gen(function*() {
        const organizations = yield* OrganizationRepository
        const mine = yield* givenOrganization()
        const theirs = yield* givenOrganization()
        expect(yield* organizations.timeZoneOf(mine.id)).toStrictEqual(Option.some("UTC"))
        assert.isTrue(yield* organizations.setTimeZone(mine.id, "Europe/Berlin"))
        expect(yield* organizations.timeZoneOf(mine.id)).toStrictEqual(Option.some("Europe/Berlin"))
        expect(yield* organizations.timeZoneOf(theirs.id)).toStrictEqual(Option.some("UTC"))
        const nobody = OrganizationId.make(randomUUID())
        assert.isFalse(yield* organizations.setTimeZone(nobody, "Europe/Berlin"))
        assert.isTrue(Option.isNone(yield* organizations.timeZoneOf(nobody)))
        // An update of the organization's own fields keeps its zone.
        yield* organizations.update(new Organization({ ...mine, name: "Renamed" }))
        expect(yield* organizations.timeZoneOf(mine.id)).toStrictEqual(Option.some("Europe/Berlin"))
        yield* organizations.delete(mine.id)
        assert.isTrue(Option.isNone(yield* organizations.timeZoneOf(mine.id)))
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

    it.effect("an update stores name, tier, platform-admin flag and suspension, and keeps the subscriber count", () =>
      Effect.gen(function*() {
        const organizations = yield* OrganizationRepository
        const organization = yield* givenOrganization({ subscriberCount: 2 })
        const bystander = yield* givenOrganization()
        assert.isTrue(yield* organizations.reserveSubscriberSlots(organization.id, 3, null))

        // The value was read before the reservation: its count is stale and must not be written back.
        const suspended = new Organization({
          ...organization,
          name: "Acme Weekly",
          tier: "enterprise",
          isPlatformAdmin: true,
          suspendedAt: instant(60),
          updatedAt: instant(60)
        })
        yield* organizations.update(suspended)
        expect(Option.getOrThrow(yield* organizations.findById(organization.id))).toStrictEqual(
          new Organization({ ...suspended, subscriberCount: 5 })
        )

        const lifted = new Organization({ ...suspended, suspendedAt: null, updatedAt: instant(90) })
        yield* organizations.update(lifted)
        expect(Option.getOrThrow(yield* organizations.findById(organization.id))).toStrictEqual(
          new Organization({ ...lifted, subscriberCount: 5 })
        )
        expect(Option.getOrThrow(yield* organizations.findById(bystander.id))).toStrictEqual(bystander)
      }))

    it.effect("an update of an organization that does not exist stores nothing", () =>
      Effect.gen(function*() {
        const organizations = yield* OrganizationRepository
        const stranger = anOrganization()
        yield* organizations.update(stranger)
        assert.isTrue(Option.isNone(yield* organizations.findById(stranger.id)))
        assert.isTrue(Option.isNone(yield* organizations.findBySlug(stranger.slug)))
      }))

    it.effect("deletes an organization once, and only that one", () =>
      Effect.gen(function*() {
        const organizations = yield* OrganizationRepository
        const [leaving, staying] = [yield* givenOrganization(), yield* givenOrganization()]
        assert.isTrue(yield* organizations.delete(leaving.id))
        assert.isFalse(yield* organizations.delete(leaving.id))
        assert.isFalse(yield* organizations.delete(OrganizationId.make(randomUUID())))
        assert.isTrue(Option.isNone(yield* organizations.findById(leaving.id)))
        assert.isTrue(Option.isNone(yield* organizations.findBySlug(leaving.slug)))
        expect(Option.getOrThrow(yield* organizations.findById(staying.id))).toStrictEqual(staying)
      }))

    it.effect("lists organizations oldest first, every one exactly once across pages, equal creation times by id", () =>
      Effect.gen(function*() {
        const organizations = yield* OrganizationRepository
        const era = anEarlierEra()
        const at = (seconds: number) => new Date(era.getTime() + seconds * 1000)
        const created = yield* Effect.forEach([3, 1, 0, 2, 1, 2, 1], (seconds) => givenOrganization({ createdAt: at(seconds) }))

        // No position starts at the oldest: nothing is older than this test's era.
        const seen = yield* walkOldestFirst(organizations.list, at(3), 2)
        const ours = new Set<string>(created.map((o) => o.id))
        expect(seen.filter((o) => ours.has(o.id)).map((o) => o.id)).toStrictEqual(
          expectedOrder(created, (o) => o.createdAt.getTime(), "asc")
        )
        expect(seen.slice(0, created.length)).toStrictEqual(seen.filter((o) => ours.has(o.id)))
        expect(new Set(seen.map((o) => o.id)).size).toBe(seen.length)
      }))

    it.effect("a page holds at most the limit, and a position past the newest gives none", () =>
      Effect.gen(function*() {
        const organizations = yield* OrganizationRepository
        yield* givenOrganization()
        yield* givenOrganization()
        expect(yield* organizations.list({ limit: 1 })).toHaveLength(1)
        const future = { value: new Date(Date.UTC(2999, 0, 1)).toISOString(), id: randomUUID() }
        expect(yield* organizations.list({ after: future, limit: 10 })).toStrictEqual([])
      }))

    it.effect("counts every organization", () =>
      Effect.gen(function*() {
        const organizations = yield* OrganizationRepository
        const before = yield* organizations.count
        const created = yield* Effect.forEach(Array.from({ length: 3 }), () => givenOrganization())
        expect(yield* organizations.count).toBe(before + 3)
        yield* organizations.delete(created[0]!.id)
        expect(yield* organizations.count).toBe(before + 2)
      }))
  })
