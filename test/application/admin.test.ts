import { describe, expect, it } from "@effect/vitest"
import { Admin, ApiKeys, Ids, Organizations, Subscribers, UserRepository } from "@roster/application"
import { EmailAddress, Slug, User, UserId } from "@roster/domain"
import { Effect, Layer } from "effect"
import { email, keyFor, openOrganization, UseCasesInMemory } from "./test-kit.js"

const AdminInMemory = Admin.Default.pipe(Layer.provideMerge(UseCasesInMemory))
const administering = <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.provide(self, AdminInMemory)

/** A platform-admin organization and a principal acting for it with every permission. */
const platformAdmin = Effect.gen(function*() {
  const ids = yield* Ids
  const organization = yield* (yield* Organizations).create({
    name: "Operators",
    slug: Slug.make(`ops-${yield* ids.next}`),
    isPlatformAdmin: true
  })
  return { organization, principal: yield* keyFor(organization.id, ["*"]) }
})

const aUser = (address: string) =>
  Effect.gen(function*() {
    const at = new Date()
    return yield* (yield* UserRepository).signIn(
      new User({ id: UserId.make(yield* (yield* Ids).next), email: EmailAddress.make(address), createdAt: at, lastSignedInAt: at }),
      at
    )
  })

describe("platform administration", () => {
  it.effect("is closed to organizations without the flag, and to credentials without *", () =>
    administering(Effect.gen(function*() {
      const admin = yield* Admin
      const { organization, principal } = yield* openOrganization({ scopes: ["*"] })
      const ops = yield* platformAdmin
      const narrow = yield* keyFor(ops.organization.id, ["subscribers:read", "tags:read"])
      for (const caller of [principal, narrow]) {
        expect((yield* Effect.flip(admin.listOrganizations(caller, { limit: 10 })))._tag).toBe("NotPlatformAdmin")
        expect((yield* Effect.flip(admin.getOrganization(caller, organization.id)))._tag).toBe("NotPlatformAdmin")
        expect((yield* Effect.flip(admin.updateOrganization(caller, organization.id, { suspended: true })))._tag)
          .toBe("NotPlatformAdmin")
        expect((yield* Effect.flip(admin.listUsers(caller, { limit: 10 })))._tag).toBe("NotPlatformAdmin")
      }
    })))

  it.effect("lists every organization with its subscriber and member counts, page by page", () =>
    administering(Effect.gen(function*() {
      const admin = yield* Admin
      const ops = yield* platformAdmin
      const acme = yield* openOrganization()
      yield* (yield* Subscribers).create(acme.principal, { email: email("one@example.com") })
      const ada = yield* aUser("ada@example.com")
      yield* admin.addMember(ops.principal, acme.organization.id, { userId: ada.id, role: "owner" })

      const seen = new Map<string, { subscribers: number; members: number }>()
      let cursor: string | undefined = undefined
      do {
        const page: Effect.Effect.Success<ReturnType<typeof admin.listOrganizations>> = yield* admin.listOrganizations(
          ops.principal,
          { limit: 1, cursor }
        )
        expect(page.total).toBe(2)
        for (const { memberCount, organization } of page.items) {
          seen.set(organization.id, { subscribers: organization.subscriberCount, members: memberCount })
        }
        cursor = page.nextCursor ?? undefined
      } while (cursor !== undefined)
      expect(seen.get(acme.organization.id)).toEqual({ subscribers: 1, members: 1 })
      expect(seen.get(ops.organization.id)).toEqual({ subscribers: 0, members: 0 })
    })))

  it.effect("a suspended organization's keys stop at once, and work again when the suspension is lifted", () =>
    administering(Effect.gen(function*() {
      const admin = yield* Admin
      const apiKeys = yield* ApiKeys
      const ops = yield* platformAdmin
      const acme = yield* openOrganization()
      const { key } = yield* apiKeys.create({ organizationId: acme.organization.id, name: "k", scopes: ["*"], environment: "live" })

      const suspended = yield* admin.updateOrganization(ops.principal, acme.organization.id, { suspended: true, tier: "pro" })
      expect(suspended.organization.isSuspended).toBe(true)
      expect(suspended.organization.tier).toBe("pro")
      expect((yield* Effect.flip(apiKeys.authenticate(key))).reason).toBe("the organization is suspended")

      yield* admin.updateOrganization(ops.principal, acme.organization.id, { suspended: false })
      expect((yield* apiKeys.authenticate(key)).organization.tier).toBe("pro")
    })))

  it.effect("the organization acting as admin cannot suspend, un-flag or delete itself", () =>
    administering(Effect.gen(function*() {
      const admin = yield* Admin
      const ops = yield* platformAdmin
      const id = ops.organization.id
      expect((yield* Effect.flip(admin.updateOrganization(ops.principal, id, { suspended: true })))).toMatchObject({ field: "suspended" })
      expect((yield* Effect.flip(admin.updateOrganization(ops.principal, id, { isPlatformAdmin: false }))))
        .toMatchObject({ field: "is_platform_admin" })
      expect((yield* Effect.flip(admin.deleteOrganization(ops.principal, id)))._tag).toBe("InvalidInput")
      expect((yield* admin.updateOrganization(ops.principal, id, { name: "Operations" })).organization.name).toBe("Operations")
    })))

  it.effect("deleting an organization takes everything it owns", () =>
    administering(Effect.gen(function*() {
      const admin = yield* Admin
      const apiKeys = yield* ApiKeys
      const ops = yield* platformAdmin
      const acme = yield* openOrganization()
      const { key } = yield* apiKeys.create({ organizationId: acme.organization.id, name: "k", scopes: ["*"], environment: "live" })
      yield* (yield* Subscribers).create(acme.principal, { email: email("gone@example.com") })

      yield* admin.deleteOrganization(ops.principal, acme.organization.id)
      expect((yield* Effect.flip(admin.getOrganization(ops.principal, acme.organization.id)))._tag).toBe("ResourceNotFound")
      expect((yield* Effect.flip(apiKeys.authenticate(key)))._tag).toBe("Unauthenticated")
      expect((yield* Effect.flip(admin.deleteOrganization(ops.principal, acme.organization.id)))._tag).toBe("ResourceNotFound")
    })))

  it.effect("members are added with a role, changed, listed and removed by user id", () =>
    administering(Effect.gen(function*() {
      const admin = yield* Admin
      const ops = yield* platformAdmin
      const acme = yield* openOrganization()
      const ada = yield* aUser("ada@example.com")

      yield* admin.addMember(ops.principal, acme.organization.id, { userId: ada.id, role: "member" })
      yield* admin.addMember(ops.principal, acme.organization.id, { userId: ada.id, role: "owner" })
      const members = yield* admin.listMembers(ops.principal, acme.organization.id)
      expect(members.map(({ membership, user }) => [user.email, membership.role])).toEqual([["ada@example.com", "owner"]])

      const shown = yield* admin.getUser(ops.principal, ada.id)
      expect(shown.memberships.map(({ organization }) => organization.id)).toEqual([acme.organization.id])

      yield* admin.removeMember(ops.principal, acme.organization.id, ada.id)
      expect(yield* admin.listMembers(ops.principal, acme.organization.id)).toEqual([])
      expect((yield* Effect.flip(admin.removeMember(ops.principal, acme.organization.id, ada.id)))._tag).toBe("ResourceNotFound")
      const stranger = UserId.make(yield* (yield* Ids).next)
      expect((yield* Effect.flip(admin.addMember(ops.principal, acme.organization.id, { userId: stranger, role: "member" }))))
        .toMatchObject({ _tag: "ResourceNotFound", resource: "user" })
    })))

  it.effect("lists users with their memberships", () =>
    administering(Effect.gen(function*() {
      const admin = yield* Admin
      const ops = yield* platformAdmin
      const ada = yield* aUser("ada@example.com")
      yield* aUser("grace@example.com")
      yield* admin.addMember(ops.principal, ops.organization.id, { userId: ada.id, role: "member" })
      const page = yield* admin.listUsers(ops.principal, { limit: 50 })
      expect(page.total).toBe(2)
      expect(page.items.map(({ memberships, user }) => [user.email, memberships.length])).toEqual([
        ["ada@example.com", 1],
        ["grace@example.com", 0]
      ])
    })))
})
