import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import {
  AddedMember,
  AddMemberRequest,
  AdminListParams,
  AdminMemberList,
  AdminMemberPath,
  AdminOrganization,
  AdminOrganizationList,
  AdminOrganizationPath,
  AdminUser,
  AdminUserList,
  AdminUserPath,
  UpdateOrganizationRequest
} from "./admin-schemas.js"
import { Authentication } from "./authentication.js"
import { documentPageHeaders } from "./pagination.js"
import { problems } from "./problems.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"
import { NoFields, optionalBody } from "../shared/action-body.js"
import { adminEndpoints as admin } from "../shared/admin-endpoints.js"

export const AdminGroup = HttpApiGroup.make("admin")
  .add(
    HttpApiEndpoint.get("listOrganizations", "/admin/organizations")
      .setUrlParams(AdminListParams)
      .addSuccess(AdminOrganizationList)
      .annotate(OpenApi.Transform, documentPageHeaders)
      .pipe(problems.describe(admin.listOrganizations))
  )
  .add(
    HttpApiEndpoint.get("getOrganization", "/admin/organizations/:organization_id")
      .setPath(AdminOrganizationPath)
      .addSuccess(AdminOrganization)
      .pipe(problems.describe(admin.getOrganization))
  )
  .add(
    HttpApiEndpoint.patch("updateOrganization", "/admin/organizations/:organization_id")
      .setPath(AdminOrganizationPath)
      .setPayload(UpdateOrganizationRequest)
      .addSuccess(AdminOrganization)
      .pipe(problems.describe(admin.updateOrganization))
  )
  .add(
    HttpApiEndpoint.del("deleteOrganization", "/admin/organizations/:organization_id")
      .setPath(AdminOrganizationPath)
      .setPayload(NoFields)
      .annotate(OpenApi.Transform, optionalBody)
      .pipe(problems.describe(admin.deleteOrganization))
  )
  .add(
    HttpApiEndpoint.get("listMembers", "/admin/organizations/:organization_id/members")
      .setPath(AdminOrganizationPath)
      .addSuccess(AdminMemberList)
      .pipe(problems.describe(admin.listMembers))
  )
  .add(
    HttpApiEndpoint.post("addMember", "/admin/organizations/:organization_id/members")
      .setPath(AdminOrganizationPath)
      .setPayload(AddMemberRequest)
      .addSuccess(AddedMember)
      .pipe(problems.describe(admin.addMember))
  )
  .add(
    HttpApiEndpoint.del("removeMember", "/admin/organizations/:organization_id/members/:user_id")
      .setPath(AdminMemberPath)
      .setPayload(NoFields)
      .annotate(OpenApi.Transform, optionalBody)
      .pipe(problems.describe(admin.removeMember))
  )
  .add(
    HttpApiEndpoint.get("listUsers", "/admin/users")
      .setUrlParams(AdminListParams)
      .addSuccess(AdminUserList)
      .annotate(OpenApi.Transform, documentPageHeaders)
      .pipe(problems.describe(admin.listUsers))
  )
  .add(
    HttpApiEndpoint.get("getUser", "/admin/users/:user_id")
      .setPath(AdminUserPath)
      .addSuccess(AdminUser)
      .pipe(problems.describe(admin.getUser))
  )
  .middleware(Authentication)
  .pipe(problems.group(...API_ROUTE_ERRORS))
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Platform admin")
  .annotate(
    OpenApi.Description,
    "Every organization, user and membership of the platform. Open to organizations with the platform-admin flag, " +
      "acting with scope `*` (an API key with `*`, or an owner's session)."
  )
