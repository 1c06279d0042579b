import {
  allows,
  InvalidInput,
  Membership,
  type Organization,
  type OrganizationId,
  reason,
  ResourceNotFound,
  type Role,
  type User,
  type UserId
} from "@roster/domain"
import { Effect, Option, Schema } from "effect"
import { now } from "./support/clock.js"
import { cutPage, positionFromCursor } from "./support/keyset.js"
import { numberedPage, type PageNumberRequest } from "./support/page-numbers.js"
import { MembershipRepository } from "./ports/membership-repository.js"
import { OrganizationRepository } from "./ports/organization-repository.js"
import { UnitOfWork } from "./ports/unit-of-work.js"
import { UserRepository } from "./ports/user-repository.js"
import type { Principal } from "./support/principal.js"
import { requireFound } from "./support/ownership.js"
import { PrincipalCache } from "./support/principal-cache.js"
import { changeOrganization, type OrganizationChanges } from "./support/organization-changes.js"
import { overviewOf } from "./organizations.js"
import { Limits } from "./support/limits.js"
import { operations } from "./support/operation.js"

export type { OrganizationChanges } from "./support/organization-changes.js"

/** Administration is for platform-admin organizations acting with every permission. */
export class NotPlatformAdmin extends Schema.TaggedError<NotPlatformAdmin>()("NotPlatformAdmin", {}) {
  override get message() {
    return "administration is open to platform-admin organizations only, acting with the scope *"
  }
}

export interface UserOverview {
  readonly user: User
  readonly memberships: ReadonlyArray<{ readonly membership: Membership; readonly organization: Organization }>
}

export interface AdminPageRequest {
  readonly cursor?: string | undefined
  readonly limit: number
}

/** Lists sort by creation, oldest first. */
const SORT = "created_at"
const ORDER = "asc" as const
const createdAt = (row: { readonly createdAt: Date }) => row.createdAt.toISOString()

/** The platform-admin area: every organization, user and membership. */
export class Admin extends Effect.Service<Admin>()("roster/Admin", {
  effect: Effect.gen(function*() {
    const operation = yield* operations
    const organizations = yield* OrganizationRepository
    const users = yield* UserRepository
    const memberships = yield* MembershipRepository
    const unitOfWork = yield* UnitOfWork
    const limits = yield* Limits
    const principals = yield* PrincipalCache

    const authorize = (principal: Principal) =>
      principal.organization.isPlatformAdmin && allows(principal.scopes, "*")
        ? Effect.void
        : Effect.fail(new NotPlatformAdmin())

    const organizationById = (id: OrganizationId) => requireFound("organization", id, organizations.findById(id))

    const userById = (id: UserId) => requireFound("user", id, users.findById(id))

    /** Changes that would lock the acting organization out of administration are refused. */
    const guardSelf = (principal: Principal, id: OrganizationId, changes: OrganizationChanges) => {
      if (principal.organization.id !== id) return Effect.void
      if (changes.isPlatformAdmin === false) {
        return Effect.fail(new InvalidInput({ field: "is_platform_admin", reason: reason("ownAdminFlag") }))
      }
      if (changes.suspended === true) {
        return Effect.fail(new InvalidInput({ field: "suspended", reason: reason("ownSuspension") }))
      }
      return Effect.void
    }

    const listOrganizations = operation("Admin.listOrganizations")(function*(principal: Principal, request: AdminPageRequest) {
      yield* authorize(principal)
      const after = yield* positionFromCursor(request.cursor, SORT, ORDER)
      const [rows, total] = yield* Effect.all([organizations.list({ after, limit: request.limit + 1 }), organizations.count], {
        concurrency: 2
      })
      const page = cutPage(rows, request.limit, SORT, ORDER, createdAt)
      const counts = yield* memberships.countMembers(page.items.map((o) => o.id))
      return {
        items: page.items.map((organization) => overviewOf(limits, organization, counts.get(organization.id) ?? 0)),
        total,
        nextCursor: page.nextCursor
      }
    })

    /** One numbered page of every organization, oldest first. */
    const listOrganizationsPage = operation("Admin.listOrganizationsPage")(function*(principal: Principal, request: PageNumberRequest) {
      yield* authorize(principal)
      const offset = (request.page - 1) * request.perPage
      const [rows, total] = yield* Effect.all([organizations.list({ offset, limit: request.perPage }), organizations.count], {
        concurrency: 2
      })
      const counts = yield* memberships.countMembers(rows.map((o) => o.id))
      const items = rows.map((organization) => overviewOf(limits, organization, counts.get(organization.id) ?? 0))
      return numberedPage(items, total, request)
    })

    const getOrganization = operation("Admin.getOrganization")(function*(principal: Principal, id: OrganizationId) {
      yield* authorize(principal)
      const organization = yield* organizationById(id)
      const counts = yield* memberships.countMembers([id])
      return overviewOf(limits, organization, counts.get(id) ?? 0)
    })

    /** Renames, moves between tiers, grants or takes the platform-admin flag, suspends or lifts a suspension. */
    const updateOrganization = operation("Admin.updateOrganization")(
      function*(principal: Principal, id: OrganizationId, changes: OrganizationChanges) {
        yield* authorize(principal)
        yield* guardSelf(principal, id, changes)
        // Principals are forgotten once the change is committed, so that none is cached from before it.
        return yield* Effect.tap(unitOfWork.transaction(Effect.gen(function*() {
          const current = yield* organizationById(id)
          const organization = yield* changeOrganization(current, changes, yield* now)
          yield* organizations.update(organization)
          const counts = yield* memberships.countMembers([id])
          return overviewOf(limits, organization, counts.get(id) ?? 0)
        })), () => principals.invalidate)
      }
    )

    /** Deletes an organization and everything it owns. */
    const deleteOrganization = operation("Admin.deleteOrganization")(function*(principal: Principal, id: OrganizationId) {
      yield* authorize(principal)
      if (principal.organization.id === id) {
        return yield* new InvalidInput({ field: "organization_id", reason: reason("ownDeletion") })
      }
      if (!(yield* organizations.delete(id))) return yield* new ResourceNotFound({ resource: "organization", id })
      yield* principals.invalidate
    })

    const listMembers = operation("Admin.listMembers")(function*(principal: Principal, id: OrganizationId) {
      yield* authorize(principal)
      yield* organizationById(id)
      return yield* memberships.listForOrganization(id)
    })

    /** Adds a user to an organization with a role, or changes the role of a member. */
    const addMember = operation("Admin.addMember")(
      function*(principal: Principal, id: OrganizationId, input: { readonly userId: UserId; readonly role: Role }) {
        yield* authorize(principal)
        return yield* unitOfWork.transaction(Effect.gen(function*() {
          yield* organizationById(id)
          const user = yield* userById(input.userId)
          const existing = yield* memberships.find(id, user.id)
          const membership = new Membership({
            organizationId: id,
            userId: user.id,
            role: input.role,
            createdAt: Option.isSome(existing) ? existing.value.createdAt : yield* now
          })
          yield* memberships.upsert(membership)
          return { membership, user }
        }))
      }
    )

    /** Removes a member; their sessions lose the organization at once. */
    const removeMember = operation("Admin.removeMember")(function*(principal: Principal, id: OrganizationId, userId: UserId) {
      yield* authorize(principal)
      yield* organizationById(id)
      if (!(yield* memberships.remove(id, userId))) return yield* new ResourceNotFound({ resource: "membership", id: userId })
    })

    const listUsers = operation("Admin.listUsers")(function*(principal: Principal, request: AdminPageRequest) {
      yield* authorize(principal)
      const after = yield* positionFromCursor(request.cursor, SORT, ORDER)
      const [rows, total] = yield* Effect.all([users.list({ after, limit: request.limit + 1 }), users.count], { concurrency: 2 })
      const page = cutPage(rows, request.limit, SORT, ORDER, createdAt)
      const byUser = yield* memberships.listForUsers(page.items.map((u) => u.id))
      return {
        items: page.items.map((user): UserOverview => ({ user, memberships: byUser.get(user.id) ?? [] })),
        total,
        nextCursor: page.nextCursor
      }
    })

    /** One numbered page of every user, oldest first. */
    const listUsersPage = operation("Admin.listUsersPage")(function*(principal: Principal, request: PageNumberRequest) {
      yield* authorize(principal)
      const offset = (request.page - 1) * request.perPage
      const [rows, total] = yield* Effect.all([users.list({ offset, limit: request.perPage }), users.count], { concurrency: 2 })
      const byUser = yield* memberships.listForUsers(rows.map((u) => u.id))
      return numberedPage(rows.map((user): UserOverview => ({ user, memberships: byUser.get(user.id) ?? [] })), total, request)
    })

    const getUser = operation("Admin.getUser")(function*(principal: Principal, id: UserId) {
      yield* authorize(principal)
      const user = yield* userById(id)
      return { user, memberships: yield* memberships.listForUser(id) } satisfies UserOverview
    })

    return {
      listOrganizations,
      listOrganizationsPage,
      getOrganization,
      updateOrganization,
      deleteOrganization,
      listMembers,
      addMember,
      removeMember,
      listUsers,
      listUsersPage,
      getUser
    } as const
  }),
  dependencies: [PrincipalCache.Default]
}) {}
