import { HttpApiBuilder } from "@effect/platform"
import { Admin, type OrganizationOverview, type UserOverview } from "@roster/application"
import type { Membership, User } from "@roster/domain"
import { Effect } from "effect"
import { CurrentPrincipal } from "../current-principal.js"
import type { AdminMember, AdminOrganization, AdminUser } from "./admin-schemas.js"
import { ReferenceApi } from "./api.js"
import { answerWithProblem } from "./application-problems.js"
import { setPageHeaders } from "./pagination.js"

const toAdminOrganization = ({ memberCount, organization }: OrganizationOverview): typeof AdminOrganization.Type => ({
  id: organization.id,
  name: organization.name,
  slug: organization.slug,
  tier: organization.tier,
  is_platform_admin: organization.isPlatformAdmin,
  suspended: organization.isSuspended,
  suspended_at: organization.suspendedAt === null ? null : organization.suspendedAt.toISOString(),
  subscriber_count: organization.subscriberCount,
  member_count: memberCount,
  created_at: organization.createdAt.toISOString(),
  updated_at: organization.updatedAt.toISOString()
})

const toAdminMember = (
  { membership, user }: { readonly membership: Membership; readonly user: User }
): typeof AdminMember.Type => ({
  user_id: user.id,
  email: user.email,
  role: membership.role,
  created_at: membership.createdAt.toISOString()
})

const toAdminUser = ({ memberships, user }: UserOverview): typeof AdminUser.Type => ({
  id: user.id,
  email: user.email,
  created_at: user.createdAt.toISOString(),
  last_signed_in_at: user.lastSignedInAt === null ? null : user.lastSignedInAt.toISOString(),
  memberships: memberships.map(({ membership, organization }) => ({
    organization_id: organization.id,
    organization_slug: organization.slug,
    role: membership.role
  }))
})

export const AdminHandlersLive = HttpApiBuilder.group(ReferenceApi, "admin", (handlers) =>
  Effect.gen(function*() {
    const admin = yield* Admin
    return handlers
      .handle("listOrganizations", ({ urlParams }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) => admin.listOrganizations(principal, { cursor: urlParams.cursor, limit: urlParams.limit })),
          Effect.tap(setPageHeaders),
          Effect.map((page) => ({
            items: page.items.map(toAdminOrganization),
            total: page.total,
            next_cursor: page.nextCursor
          })),
          answerWithProblem
        ))
      .handle("getOrganization", ({ path }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) => admin.getOrganization(principal, path.organization_id)),
          Effect.map(toAdminOrganization),
          answerWithProblem
        ))
      .handle("updateOrganization", ({ path, payload }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) =>
            admin.updateOrganization(principal, path.organization_id, {
              name: payload.name,
              tier: payload.tier,
              isPlatformAdmin: payload.is_platform_admin,
              suspended: payload.suspended
            })
          ),
          Effect.map(toAdminOrganization),
          answerWithProblem
        ))
      .handle("deleteOrganization", ({ path }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) => admin.deleteOrganization(principal, path.organization_id)),
          answerWithProblem
        ))
      .handle("listMembers", ({ path }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) => admin.listMembers(principal, path.organization_id)),
          Effect.map((members) => ({ items: members.map(toAdminMember), total: members.length })),
          answerWithProblem
        ))
      .handle("addMember", ({ path, payload }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) =>
            admin.addMember(principal, path.organization_id, { userId: payload.user_id, role: payload.role })
          ),
          Effect.map(toAdminMember),
          answerWithProblem
        ))
      .handle("removeMember", ({ path }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) => admin.removeMember(principal, path.organization_id, path.user_id)),
          answerWithProblem
        ))
      .handle("listUsers", ({ urlParams }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) => admin.listUsers(principal, { cursor: urlParams.cursor, limit: urlParams.limit })),
          Effect.tap(setPageHeaders),
          Effect.map((page) => ({ items: page.items.map(toAdminUser), total: page.total, next_cursor: page.nextCursor })),
          answerWithProblem
        ))
      .handle("getUser", ({ path }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) => admin.getUser(principal, path.user_id)),
          Effect.map(toAdminUser),
          answerWithProblem
        ))
  }))
