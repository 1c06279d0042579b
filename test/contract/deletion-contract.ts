import { assert, expect, layer } from "@effect/vitest"
import { ApiKeyRepository, MembershipRepository, SessionRepository, UserRepository } from "@roster/application"
import type { OrganizationId, UserId } from "@roster/domain"
import { Effect, type Layer, Option } from "effect"
import {
  aSession,
  givenApiKey,
  givenMembership,
  givenOrganization,
  givenUser,
  type Persistence
} from "./fixtures.js"

/**
 * Deleting an organization or a user straight in the database, as an operator would: no port
 * deletes them yet, and what goes with them is the schema's promise.
 */
export interface DirectDeletion<R> {
  readonly deleteOrganization: (id: OrganizationId) => Effect.Effect<void, never, R>
  readonly deleteUser: (id: UserId) => Effect.Effect<void, never, R>
}

export const deletionContract = <R>(persistence: Layer.Layer<Persistence | R, unknown>, direct: DirectDeletion<R>) =>
  layer(persistence)("What goes with a deleted organization or user", (it) => {
    it.effect("an organization's memberships and keys go with it; its members stay, with their other memberships", () =>
      Effect.gen(function*() {
        const memberships = yield* MembershipRepository
        const [organization, other] = [yield* givenOrganization(), yield* givenOrganization()]
        const [owner, member] = [yield* givenUser(), yield* givenUser()]
        yield* givenMembership(organization.id, owner.id, { role: "owner" })
        yield* givenMembership(organization.id, member.id)
        const elsewhere = yield* givenMembership(other.id, owner.id, { role: "owner" })
        const apiKey = yield* givenApiKey(organization.id)

        yield* direct.deleteOrganization(organization.id)

        assert.isTrue(Option.isNone(yield* memberships.find(organization.id, owner.id)))
        expect(yield* memberships.listForOrganization(organization.id)).toStrictEqual([])
        expect(yield* memberships.countWithRole(organization.id, "owner")).toBe(0)
        expect(yield* memberships.listForUser(owner.id)).toStrictEqual([{ membership: elsewhere, organization: other }])
        expect(yield* memberships.listForUser(member.id)).toStrictEqual([])
        assert.isTrue(Option.isSome(yield* (yield* UserRepository).findById(member.id)))
        assert.isTrue(Option.isNone(yield* (yield* ApiKeyRepository).organizationOf(apiKey.id)))
      }))

    it.effect("a user's memberships and sessions go with the user; other members' stay", () =>
      Effect.gen(function*() {
        const memberships = yield* MembershipRepository
        const sessions = yield* SessionRepository
        const organization = yield* givenOrganization()
        const [leaving, staying] = [yield* givenUser(), yield* givenUser()]
        yield* givenMembership(organization.id, leaving.id, { role: "owner" })
        const kept = yield* givenMembership(organization.id, staying.id)
        const [ended, continuing] = [aSession(leaving.id), aSession(staying.id)]
        yield* sessions.insert(ended)
        yield* sessions.insert(continuing)

        yield* direct.deleteUser(leaving.id)

        assert.isTrue(Option.isNone(yield* (yield* UserRepository).findById(leaving.id)))
        assert.isTrue(Option.isNone(yield* memberships.find(organization.id, leaving.id)))
        expect(yield* memberships.listForOrganization(organization.id)).toStrictEqual([{ membership: kept, user: staying }])
        assert.isTrue(Option.isNone(yield* sessions.findById(ended.id)))
        expect(yield* sessions.findById(continuing.id)).toStrictEqual(Option.some(continuing))
      }))
  })
