import { HttpApiBuilder } from "@effect/platform"
import { Admin, type OrganizationOverview, type UserOverview } from "@roster/application"
import type { Membership, User } from "@roster/domain"
import { Effect } from "effect"
import { respond } from "../shared/respond.js"
import type {
  AddMemberRequest,
  AdminMember,
  AdminOrganization,
  AdminUser,
  UpdateOrganizationRequest
} from "./admin-schemas.js"
import { ReferenceApi } from "./api.js"
import { paged, pageOf } from "./pagination.js"

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

const organizationChanges = (body: typeof UpdateOrganizationRequest.Type) => ({
  name: body.name,
  tier: body.tier,
  isPlatformAdmin: body.is_platform_admin,
  suspended: body.suspended
})

const newMember = (body: typeof AddMemberRequest.Type) => ({ userId: body.user_id, role: body.role })

const toMemberList = (members: ReadonlyArray<Parameters<typeof toAdminMember>[0]>) => ({
  items: members.map(toAdminMember),
  total: members.length
})

export const AdminHandlersLive = HttpApiBuilder.group(ReferenceApi, "admin", (handlers) =>
  Effect.gen(function*() {
    const admin = yield* Admin
    return handlers
      .handle("listOrganizations", ({ urlParams }) =>
        respond((caller) => paged(admin.listOrganizations(caller, urlParams)), pageOf(toAdminOrganization)))
      .handle("getOrganization", ({ path }) =>
        respond((caller) => admin.getOrganization(caller, path.organization_id), toAdminOrganization))
      .handle("updateOrganization", ({ path, payload }) =>
        respond((caller) => admin.updateOrganization(caller, path.organization_id, organizationChanges(payload)), toAdminOrganization))
      .handle("deleteOrganization", ({ path }) => respond((caller) => admin.deleteOrganization(caller, path.organization_id)))
      .handle("listMembers", ({ path }) => respond((caller) => admin.listMembers(caller, path.organization_id), toMemberList))
      .handle("addMember", ({ path, payload }) =>
        respond((caller) => admin.addMember(caller, path.organization_id, newMember(payload)), toAdminMember))
      .handle("removeMember", ({ path }) => respond((caller) => admin.removeMember(caller, path.organization_id, path.user_id)))
      .handle("listUsers", ({ urlParams }) => respond((caller) => paged(admin.listUsers(caller, urlParams)), pageOf(toAdminUser)))
      .handle("getUser", ({ path }) => respond((caller) => admin.getUser(caller, path.user_id), toAdminUser))
  }))
