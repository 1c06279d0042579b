import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { OrganizationId, UserId } from "@roster/domain"
import { Schema } from "effect"
import {
  AddMemberRequest,
  AdminMember,
  AdminOrganization,
  AdminUser,
  UpdateOrganizationRequest
} from "../shared/admin-schemas.js"
import { IdInput, withStatus } from "../shared/wire-fields.js"
import { OverviewAuthentication } from "./authentication.js"
import { OVERVIEW_PREFIX } from "./paths.js"
import { NumberedList, PageListParams, Single } from "./schemas.js"
import { NoFields, optionalBody } from "../shared/action-body.js"
import { adminEndpoints as admin, adminsOnly } from "../shared/admin-endpoints.js"
import { envelopes } from "./errors.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"

const OrganizationPath = Schema.Struct({ id: IdInput(OrganizationId, "the organization's id") })
const MemberPath = Schema.Struct({
  id: IdInput(OrganizationId, "the organization's id"),
  user_id: IdInput(UserId, "the member's user id")
})
const UserPath = Schema.Struct({ id: IdInput(UserId, "the user's id") })
const AdminOrganizationData = Single(AdminOrganization, "AdminOrganizationData")
const AdminMemberData = Single(AdminMember, "AdminMemberData")
const AdminMembers = Schema.Struct({ data: Schema.Array(AdminMember) }).annotations({ identifier: "AdminMembers" })

export const AdminGroup = HttpApiGroup.make("admin")
  .add(
    HttpApiEndpoint.get("listOrganizations", "/admin/organizations")
      .setUrlParams(PageListParams)
      .addSuccess(NumberedList(AdminOrganization, "AdminOrganizationList"))
      .pipe(envelopes.describe({
        ...admin.listOrganizations,
        description: `One numbered page of every organization of the platform, oldest first. ${adminsOnly}`
      }))
  )
  .add(
    HttpApiEndpoint.get("getOrganization", "/admin/organizations/:id")
      .setPath(OrganizationPath)
      .addSuccess(AdminOrganizationData)
      .pipe(envelopes.describe({
        ...admin.getOrganization,
        description: adminsOnly
      }))
  )
  .add(
    HttpApiEndpoint.patch("updateOrganization", "/admin/organizations/:id")
      .setPath(OrganizationPath)
      .setPayload(UpdateOrganizationRequest)
      .addSuccess(AdminOrganizationData)
      .pipe(envelopes.describe({
        ...admin.updateOrganization,
        description: "Fields left out stay as they are; a suspension takes effect at once. The organization acting here " +
          `cannot suspend itself or drop its own platform-admin flag. ${adminsOnly}`
      }))
  )
  .add(
    HttpApiEndpoint.del("deleteOrganization", "/admin/organizations/:id")
      .setPath(OrganizationPath)
      .setPayload(NoFields)
      .annotate(OpenApi.Transform, optionalBody)
      .pipe(envelopes.describe({
        ...admin.deleteOrganization,
        description: `Deletes the organization with everything it owns; it cannot delete itself. ${adminsOnly}`
      }))
  )
  .add(
    HttpApiEndpoint.get("listMembers", "/admin/organizations/:id/members")
      .setPath(OrganizationPath)
      .addSuccess(AdminMembers)
      .pipe(envelopes.describe({
        ...admin.listMembers,
        description: adminsOnly
      }))
  )
  .add(
    HttpApiEndpoint.post("addMember", "/admin/organizations/:id/members")
      .setPath(OrganizationPath)
      .setPayload(AddMemberRequest)
      .addSuccess(withStatus(AdminMemberData, 201, "AdminMemberData"))
      .pipe(envelopes.describe({
        ...admin.addMember,
        description: `Users exist once they have signed in. ${adminsOnly}`
      }))
  )
  .add(
    HttpApiEndpoint.del("removeMember", "/admin/organizations/:id/members/:user_id")
      .setPath(MemberPath)
      .setPayload(NoFields)
      .annotate(OpenApi.Transform, optionalBody)
      .pipe(envelopes.describe({
        ...admin.removeMember,
        description: adminsOnly
      }))
  )
  .add(
    HttpApiEndpoint.get("listUsers", "/admin/users")
      .setUrlParams(PageListParams)
      .addSuccess(NumberedList(AdminUser, "AdminUserList"))
      .pipe(envelopes.describe({
        ...admin.listUsers,
        description: `One numbered page of every signed-up user, oldest first, with their organizations. ${adminsOnly}`
      }))
  )
  .add(
    HttpApiEndpoint.get("getUser", "/admin/users/:id")
      .setPath(UserPath)
      .addSuccess(Single(AdminUser, "AdminUserData"))
      .pipe(envelopes.describe({
        ...admin.getUser,
        description: adminsOnly
      }))
  )
  .middleware(OverviewAuthentication)
  .pipe(envelopes.group(...API_ROUTE_ERRORS))
  .prefix(OVERVIEW_PREFIX)
  .annotate(OpenApi.Title, "Platform admin")
  .annotate(OpenApi.Description, "Every organization, user and membership of the platform, for platform admins.")
