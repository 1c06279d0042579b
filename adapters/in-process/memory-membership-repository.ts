import { MembershipRepository } from "@roster/application"
import { Membership, type OrganizationId, type UserId } from "@roster/domain"
import { Effect, Layer, Option } from "effect"
import { membershipKey, MemoryStore, type Tables } from "./memory-store.js"
import { compareText } from "./ordering.js"

/** Oldest first, ties by the id of the other side, as the database orders them. */
const oldestFirst = (other: (m: Membership) => string) => (a: Membership, b: Membership): number =>
  a.createdAt.getTime() - b.createdAt.getTime() || compareText(other(a), other(b))

/** The user's memberships with their organizations, oldest first. */
const organizationsOf = (t: Tables, userId: string) =>
  [...t.memberships.values()]
    .filter((m) => m.userId === userId)
    .sort(oldestFirst((m) => m.organizationId))
    .flatMap((membership) => {
      const organization = t.organizations.get(membership.organizationId)
      return organization === undefined ? [] : [{ membership, organization }]
    })

export const MemoryMembershipRepositoryLive = Layer.effect(
  MembershipRepository,
  Effect.gen(function*() {
    const store = yield* MemoryStore
    return MembershipRepository.of({
      // A membership keeps the moment it began; only its role changes.
      upsert: (membership) =>
        store.write((t) => {
          const key = membershipKey(membership.organizationId, membership.userId)
          const current = t.memberships.get(key)
          t.memberships.set(
            key,
            current === undefined ? membership : new Membership({ ...current, role: membership.role })
          )
        }),
      find: (organizationId, userId) =>
        store.read((t) => Option.fromNullable(t.memberships.get(membershipKey(organizationId, userId)))),
      listForUser: (userId) => store.read((t) => organizationsOf(t, userId)),
      listForOrganization: (organizationId) =>
        store.read((t) =>
          [...t.memberships.values()]
            .filter((m) => m.organizationId === organizationId)
            .sort(oldestFirst((m) => m.userId))
            .flatMap((membership) => {
              const user = t.users.get(membership.userId)
              return user === undefined ? [] : [{ membership, user }]
            })
        ),
      remove: (organizationId, userId) => store.write((t) => t.memberships.delete(membershipKey(organizationId, userId))),
      // The store's transactions take turns, so one that reads the owners holds them already.
      holdOwners: (organizationId) =>
        store.read((t) =>
          [...t.memberships.values()]
            .filter((m) => m.organizationId === organizationId && m.role === "owner")
            .map((m) => m.userId)
            .sort(compareText)
        ),
      countWithRole: (organizationId, role) =>
        store.read((t) =>
          [...t.memberships.values()].filter((m) => m.organizationId === organizationId && m.role === role).length
        ),
      countMembers: (organizationIds) =>
        store.read((t) => {
          const wanted = new Set<string>(organizationIds)
          const counts = new Map<OrganizationId, number>()
          for (const m of t.memberships.values()) {
            if (wanted.has(m.organizationId)) counts.set(m.organizationId, (counts.get(m.organizationId) ?? 0) + 1)
          }
          return counts
        }),
      listForUsers: (userIds) =>
        store.read((t) => {
          const byUser = new Map<UserId, ReturnType<typeof organizationsOf>>()
          for (const userId of new Set(userIds)) {
            const joined = organizationsOf(t, userId)
            if (joined.length > 0) byUser.set(userId, joined)
          }
          return byUser
        })
    })
  })
)
