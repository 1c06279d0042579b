import { CustomRateLimit, MAX_ORGANIZATION_NAME_LENGTH, OrganizationName, PlanTier, Role, UserId } from "@roster/domain"
import { Schema } from "effect"
import type { OrganizationOverview, UserOverview } from "@roster/application"
import type { Membership, User } from "@roster/domain"
import { Count, IdInput, oneOf, strictInput, Timestamp, Uuid } from "./wire-fields.js"

/** The platform-admin area as both forms show and accept it. */

const TierOutput = PlanTier.annotations({ description: "the plan: `free`, `pro` or `enterprise` (the top tier)" })
const RoleOutput = Role.annotations({ description: "`owner` (everything) or `member` (subscribers and tags)" })

export const AdminOrganization = Schema.Struct({
  id: Uuid,
  name: Schema.String,
  slug: Schema.String,
  tier: TierOutput,
  is_platform_admin: Schema.Boolean.annotations({ description: "whether the organization may use these endpoints" }),
  suspended: Schema.Boolean.annotations({
    description: "a suspended organization's keys and its members' sessions answer 401 until the suspension is lifted"
  }),
  suspended_at: Schema.NullOr(Timestamp).annotations({ description: "when the suspension began; null when not suspended" }),
  rate_limit_per_minute: Schema.NullOr(Schema.Int).annotations({
    description: "API requests a minute the organization may make: its plan's, or on enterprise its custom limit; null for none"
  }),
  custom_rate_limit: Schema.NullOr(Schema.Int).annotations({
    description: "the custom limit set on enterprise (0 for none); null when the plan's applies"
  }),
  subscriber_count: Count("how many subscribers the organization keeps"),
  member_count: Count("how many users are members of the organization"),
  created_at: Timestamp,
  updated_at: Timestamp
}).annotations({ identifier: "AdminOrganization", description: "an organization as the platform admin sees it" })

export const AdminMember = Schema.Struct({
  user_id: Uuid,
  email: Schema.String,
  role: RoleOutput,
  created_at: Timestamp.annotations({ description: "when the user became a member" })
}).annotations({ identifier: "AdminMember", description: "a user's membership of the organization" })

export const AdminUserMembership = Schema.Struct({
  organization_id: Uuid,
  organization_slug: Schema.String,
  role: RoleOutput
}).annotations({ identifier: "AdminUserMembership", description: "an organization the user belongs to, with the role" })

export const AdminUser = Schema.Struct({
  id: Uuid,
  email: Schema.String,
  created_at: Timestamp.annotations({ description: "when the user first signed in" }),
  last_signed_in_at: Schema.NullOr(Timestamp).annotations({ description: "the latest sign-in; null if none since" }),
  memberships: Schema.Array(AdminUserMembership).annotations({ description: "oldest membership first" })
}).annotations({ identifier: "AdminUser", description: "a signed-up user with their organizations" })

export const UpdateOrganizationRequest = Schema.Struct({
  name: Schema.optionalWith(
    OrganizationName.annotations({
      jsonSchema: {
        type: "string",
        minLength: 1,
        maxLength: MAX_ORGANIZATION_NAME_LENGTH,
        description: "the organization's name; trimmed"
      }
    }),
    { exact: true }
  ),
  tier: Schema.optionalWith(oneOf(PlanTier, "the plan: `free`, `pro` or `enterprise`"), { exact: true }),
  is_platform_admin: Schema.optionalWith(
    Schema.Boolean.annotations({ description: "grants or takes the platform-admin flag" }),
    { exact: true }
  ),
  suspended: Schema.optionalWith(
    Schema.Boolean.annotations({
      description: "true suspends the organization (its keys and sessions answer 401 at once); false lifts the suspension"
    }),
    { exact: true }
  ),
  custom_rate_limit: Schema.optionalWith(
    Schema.NullOr(CustomRateLimit).annotations({
      description: "requests a minute instead of the plan's, enterprise only: 0 for no limit, null for the plan's " +
        "(10,000); a move below enterprise drops it"
    }),
    { exact: true }
  )
}).annotations({
  identifier: "UpdateOrganizationRequest",
  description: "fields left out stay as they are; the slug never changes",
  ...strictInput
})

export const AddMemberRequest = Schema.Struct({
  user_id: IdInput(UserId, "the user to add; users exist once they have signed in"),
  role: oneOf(Role, "`owner` or `member`")
}).annotations({ identifier: "AddMemberRequest", ...strictInput })

export const toAdminOrganization = ({ memberCount, organization, requestsPerMinute }: OrganizationOverview): typeof AdminOrganization.Type => ({
  id: organization.id,
  name: organization.name,
  slug: organization.slug,
  tier: organization.tier,
  is_platform_admin: organization.isPlatformAdmin,
  suspended: organization.isSuspended,
  suspended_at: organization.suspendedAt === null ? null : organization.suspendedAt.toISOString(),
  rate_limit_per_minute: requestsPerMinute,
  custom_rate_limit: organization.customRateLimit,
  subscriber_count: organization.subscriberCount,
  member_count: memberCount,
  created_at: organization.createdAt.toISOString(),
  updated_at: organization.updatedAt.toISOString()
})

export const toAdminMember = (
  { membership, user }: { readonly membership: Membership; readonly user: User }
): typeof AdminMember.Type => ({
  user_id: user.id,
  email: user.email,
  role: membership.role,
  created_at: membership.createdAt.toISOString()
})

export const toAdminUser = ({ memberships, user }: UserOverview): typeof AdminUser.Type => ({
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

export const organizationChanges = (body: typeof UpdateOrganizationRequest.Type) => ({
  name: body.name,
  tier: body.tier,
  isPlatformAdmin: body.is_platform_admin,
  suspended: body.suspended,
  customRateLimit: body.custom_rate_limit
})

export const newMember = (body: typeof AddMemberRequest.Type) => ({ userId: body.user_id, role: body.role })
