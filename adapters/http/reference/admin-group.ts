import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import {
  AddedMember,
  AdminListParams,
  AdminMemberList,
  AdminOrganization,
  AdminOrganizationList,
  AdminUser,
  AdminUserList
} from "./admin-schemas.js"
import { Authentication } from "./authentication.js"
import { documentPageHeaders } from "./pagination.js"
import { problems } from "./problems.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"
import { adminEndpoints } from "../shared/admin-endpoints.js"

const admin = adminEndpoints({ organization: "organization_id", user: "user_id" })

export const AdminGroup = HttpApiGroup.make("admin")
  .add(
    HttpApiEndpoint.get("listOrganizations", "/admin/organizations")
      .setUrlParams(AdminListParams)
      .addSuccess(AdminOrganizationList)
      .annotate(OpenApi.Transform, documentPageHeaders)
      .pipe(problems.describe(admin.listOrganizations))
  )
  .add(problems.declare(admin.getOrganization).addSuccess(AdminOrganization))
  .add(problems.declare(admin.updateOrganization).addSuccess(AdminOrganization))
  .add(problems.declare(admin.deleteOrganization))
  .add(problems.declare(admin.listMembers).addSuccess(AdminMemberList))
  .add(problems.declare(admin.addMember).addSuccess(AddedMember))
  .add(problems.declare(admin.removeMember))
  .add(
    HttpApiEndpoint.get("listUsers", "/admin/users")
      .setUrlParams(AdminListParams)
      .addSuccess(AdminUserList)
      .annotate(OpenApi.Transform, documentPageHeaders)
      .pipe(problems.describe(admin.listUsers))
  )
  .add(problems.declare(admin.getUser).addSuccess(AdminUser))
  .middleware(Authentication)
  .pipe(problems.group(...API_ROUTE_ERRORS))
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Platform admin")
  .annotate(
    OpenApi.Description,
    "Every organization, user and membership of the platform. Open to organizations with the platform-admin flag, " +
      "acting with scope `*` (an API key with `*`, or an owner's session)."
  )
