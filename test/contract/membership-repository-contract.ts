import { assert, expect, layer } from "@effect/vitest"
import { MembershipRepository, UnitOfWork } from "@roster/application"
import { Membership, type Organization, UserId } from "@roster/domain"
import { Deferred, Effect, Fiber, Option } from "effect"
import { randomUUID } from "node:crypto"
import { compareCodePoints, givenMembership, givenOrganization, givenUser, instant, type PersistenceLayer } from "./fixtures.js"

export const membershipRepositoryContract = (persistence: PersistenceLayer) =>
  layer(persistence)("MembershipRepository", (it) => {
    it.effect("adds a membership and finds it by organization and user", () =>
      Effect.gen(function*() {
        const memberships = yield* MembershipRepository
        const organization = yield* givenOrganization()
        const user = yield* givenUser()
        const membership = new Membership({ organizationId: organization.id, userId: user.id, role: "owner", createdAt: instant(5) })
        yield* memberships.upsert(membership)
        expect(Option.getOrThrow(yield* memberships.find(organization.id, user.id))).toStrictEqual(membership)
        assert.isTrue(Option.isNone(yield* memberships.find((yield* givenOrganization()).id, user.id)))
        assert.isTrue(Option.isNone(yield* memberships.find(organization.id, UserId.make(randomUUID()))))
      }))

    it.effect("an upsert of an existing membership changes its role and keeps when it began", () =>
      Effect.gen(function*() {
        const memberships = yield* MembershipRepository
        const organization = yield* givenOrganization()
        const user = yield* givenUser()
        const membership = yield* givenMembership(organization.id, user.id, { role: "member", createdAt: instant(5) })
        yield* memberships.upsert(new Membership({ ...membership, role: "owner", createdAt: instant(90) }))
        expect(Option.getOrThrow(yield* memberships.find(organization.id, user.id))).toStrictEqual(
          new Membership({ ...membership, role: "owner" })
        )
        expect(yield* memberships.listForOrganization(organization.id)).toHaveLength(1)
      }))

    it.effect("lists a user's organizations oldest membership first, each with the user's role", () =>
      Effect.gen(function*() {
        const memberships = yield* MembershipRepository
        const user = yield* givenUser()
        const [late, early, tiedA, tiedB] = [
          yield* givenOrganization(),
          yield* givenOrganization(),
          yield* givenOrganization(),
          yield* givenOrganization()
        ]
        const tied = [tiedA, tiedB].sort((a, b) => compareCodePoints(a.id, b.id))
        const joined = [
          { organization: early, membership: yield* givenMembership(early.id, user.id, { createdAt: instant(1) }) },
          ...(yield* Effect.forEach(tied, (organization) =>
            Effect.map(
              givenMembership(organization.id, user.id, { role: "owner", createdAt: instant(5) }),
              (membership) => ({ organization, membership })
            ))),
          { organization: late, membership: yield* givenMembership(late.id, user.id, { createdAt: instant(9) }) }
        ]
        yield* givenMembership(early.id, (yield* givenUser()).id, { createdAt: instant(0) })

        expect(yield* memberships.listForUser(user.id)).toStrictEqual(joined)
        expect(yield* memberships.listForUser(UserId.make(randomUUID()))).toStrictEqual([])
      }))

    it.effect("lists an organization's members oldest first, each with the user", () =>
      Effect.gen(function*() {
        const memberships = yield* MembershipRepository
        const organization = yield* givenOrganization()
        const [owner, newcomer, tiedA, tiedB] = [yield* givenUser(), yield* givenUser(), yield* givenUser(), yield* givenUser()]
        const tied = [tiedA, tiedB].sort((a, b) => compareCodePoints(a.id, b.id))
        const newcomerMembership = yield* givenMembership(organization.id, newcomer.id, { createdAt: instant(8) })
        const ownerMembership = yield* givenMembership(organization.id, owner.id, { role: "owner", createdAt: instant(2) })
        const tiedMemberships = yield* Effect.forEach(tied, (user) =>
          givenMembership(organization.id, user.id, { createdAt: instant(4) }))
        yield* givenMembership((yield* givenOrganization()).id, owner.id, { createdAt: instant(1) })

        expect(yield* memberships.listForOrganization(organization.id)).toStrictEqual([
          { membership: ownerMembership, user: owner },
          { membership: tiedMemberships[0], user: tied[0] },
          { membership: tiedMemberships[1], user: tied[1] },
          { membership: newcomerMembership, user: newcomer }
        ])
      }))

    it.effect("removes a membership once, and only that one", () =>
      Effect.gen(function*() {
        const memberships = yield* MembershipRepository
        const organization = yield* givenOrganization()
        const [leaving, staying] = [yield* givenUser(), yield* givenUser()]
        yield* givenMembership(organization.id, leaving.id)
        const kept = yield* givenMembership(organization.id, staying.id)
        assert.isTrue(yield* memberships.remove(organization.id, leaving.id))
        assert.isFalse(yield* memberships.remove(organization.id, leaving.id))
        assert.isTrue(Option.isNone(yield* memberships.find(organization.id, leaving.id)))
        expect(yield* memberships.listForUser(leaving.id)).toStrictEqual([])
        expect((yield* memberships.listForOrganization(organization.id)).map((m) => m.membership)).toStrictEqual([kept])
      }))

    it.effect("holds an organization's owners, by user id, and no one else", () =>
      Effect.gen(function*() {
        const memberships = yield* MembershipRepository
        const unitOfWork = yield* UnitOfWork
        const organization = yield* givenOrganization()
        const [ada, grace, linus] = [yield* givenUser(), yield* givenUser(), yield* givenUser()]
        yield* givenMembership(organization.id, ada.id, { role: "owner" })
        yield* givenMembership(organization.id, grace.id, { role: "owner" })
        yield* givenMembership(organization.id, linus.id, { role: "member" })
        yield* givenMembership((yield* givenOrganization()).id, linus.id, { role: "owner" })

        expect(yield* unitOfWork.transaction(memberships.holdOwners(organization.id))).toStrictEqual(
          [ada.id, grace.id].sort(compareCodePoints)
        )
        expect(yield* unitOfWork.transaction(memberships.holdOwners((yield* givenOrganization()).id))).toStrictEqual([])
      }))

    it.effect("held owners wait for their holder's transaction: the next holder sees an owner demoted or removed meanwhile", () =>
      Effect.gen(function*() {
        const memberships = yield* MembershipRepository
        const unitOfWork = yield* UnitOfWork
        const organization = yield* givenOrganization()
        const [ada, grace, linus] = [yield* givenUser(), yield* givenUser(), yield* givenUser()]
        const graces = yield* givenMembership(organization.id, grace.id, { role: "owner" })
        for (const user of [ada, linus]) yield* givenMembership(organization.id, user.id, { role: "owner" })

        const holding = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        const first = yield* Effect.fork(unitOfWork.transaction(Effect.gen(function*() {
          expect(yield* memberships.holdOwners(organization.id)).toHaveLength(3)
          yield* Deferred.succeed(holding, undefined)
          yield* Deferred.await(release)
          yield* memberships.upsert(new Membership({ ...graces, role: "member" }))
          yield* memberships.remove(organization.id, linus.id)
        })))
        yield* Deferred.await(holding)
        const second = yield* Effect.fork(unitOfWork.transaction(memberships.holdOwners(organization.id)))
        // Real time (the test's clock stands still) for the second holder to reach the owners.
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 50)))
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(first)
        expect(yield* Fiber.join(second)).toStrictEqual([ada.id])
      }))

    it.effect("counts an organization's members of each role", () =>
      Effect.gen(function*() {
        const memberships = yield* MembershipRepository
        const organization = yield* givenOrganization()
        const users = yield* Effect.forEach(Array.from({ length: 5 }), () => givenUser())
        for (const [i, user] of users.entries()) {
          yield* givenMembership(organization.id, user.id, { role: i < 2 ? "owner" : "member" })
        }
        yield* givenMembership((yield* givenOrganization()).id, users[4]!.id, { role: "owner" })
        expect(yield* memberships.countWithRole(organization.id, "owner")).toBe(2)
        expect(yield* memberships.countWithRole(organization.id, "member")).toBe(3)

        yield* givenMembership(organization.id, users[0]!.id, { role: "member" })
        expect(yield* memberships.countWithRole(organization.id, "owner")).toBe(1)
        expect(yield* memberships.countWithRole(organization.id, "member")).toBe(4)
        expect(yield* memberships.countWithRole((yield* givenOrganization()).id, "owner")).toBe(0)
      }))

    it.effect("counts the members of several organizations at once; those without members are absent", () =>
      Effect.gen(function*() {
        const memberships = yield* MembershipRepository
        const [busy, small, empty, unasked] = [
          yield* givenOrganization(),
          yield* givenOrganization(),
          yield* givenOrganization(),
          yield* givenOrganization()
        ]
        const users = yield* Effect.forEach(Array.from({ length: 3 }), () => givenUser())
        for (const [i, user] of users.entries()) {
          yield* givenMembership(busy.id, user.id, { role: i === 0 ? "owner" : "member" })
        }
        yield* givenMembership(small.id, users[0]!.id, { role: "owner" })
        yield* givenMembership(unasked.id, users[1]!.id)

        expect(yield* memberships.countMembers([busy.id, small.id, empty.id])).toStrictEqual(
          new Map([[busy.id, 3], [small.id, 1]])
        )
        expect(yield* memberships.countMembers([empty.id])).toStrictEqual(new Map())
        expect(yield* memberships.countMembers([])).toStrictEqual(new Map())
      }))

    it.effect("lists the memberships of several users at once, per user oldest first; users without any are absent", () =>
      Effect.gen(function*() {
        const memberships = yield* MembershipRepository
        const [ada, grace, loner, unasked] = [yield* givenUser(), yield* givenUser(), yield* givenUser(), yield* givenUser()]
        const [late, early, tiedA, tiedB] = [
          yield* givenOrganization(),
          yield* givenOrganization(),
          yield* givenOrganization(),
          yield* givenOrganization()
        ]
        const tied = [tiedA, tiedB].sort((a, b) => compareCodePoints(a.id, b.id))
        const joined = (organization: Organization, membership: Membership) => ({ organization, membership })
        const adas = [
          joined(early, yield* givenMembership(early.id, ada.id, { role: "owner", createdAt: instant(1) })),
          joined(tied[0]!, yield* givenMembership(tied[0]!.id, ada.id, { createdAt: instant(5) })),
          joined(tied[1]!, yield* givenMembership(tied[1]!.id, ada.id, { createdAt: instant(5) })),
          joined(late, yield* givenMembership(late.id, ada.id, { createdAt: instant(9) }))
        ]
        const graces = [joined(late, yield* givenMembership(late.id, grace.id, { role: "owner", createdAt: instant(2) }))]
        yield* givenMembership(early.id, unasked.id, { createdAt: instant(0) })

        const byUser = yield* memberships.listForUsers([grace.id, loner.id, ada.id])
        expect(byUser).toStrictEqual(new Map([[ada.id, adas], [grace.id, graces]]))
        expect(byUser.get(ada.id)).toStrictEqual(yield* memberships.listForUser(ada.id))
        assert.isFalse(byUser.has(loner.id))
        expect(yield* memberships.listForUsers([])).toStrictEqual(new Map())
      }))
  })
