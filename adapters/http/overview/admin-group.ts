import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { AdminMember, AdminOrganization, AdminUser } from "../shared/admin-schemas.js"
import { withStatus } from "../shared/wire-fields.js"
import { OverviewAuthentication } from "./authentication.js"
import { OVERVIEW_PREFIX } from "./paths.js"
import { NumberedList, PageListParams, Single } from "./schemas.js"
import { adminEndpoints, adminsOnly } from "../shared/admin-endpoints.js"
import { envelopes } from "./errors.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"

const AdminOrganizationData = Single(AdminOrganization, "AdminOrganizationData")
const AdminMemberData = Single(AdminMember, "AdminMemberData")
const AdminMembers = Schema.Struct({ data: Schema.Array(AdminMember) }).annotations({ identifier: "AdminMembers" })

const admin = adminEndpoints({ organization: "id", user: "id" })

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
  .add(envelopes.declare({ ...admin.getOrganization, description: adminsOnly }).addSuccess(AdminOrganizationData))
  .add(
    envelopes.declare({
      ...admin.updateOrganization,
      description: "Fields left out stay as they are; a suspension takes effect at once. The organization acting here " +
        `cannot suspend itself or drop its own platform-admin flag. ${adminsOnly}`
    }).addSuccess(AdminOrganizationData)
  )
  .add(
    envelopes.declare({
      ...admin.deleteOrganization,
      description: `Deletes the organization with everything it owns; it cannot delete itself. ${adminsOnly}`
    })
  )
  .add(envelopes.declare({ ...admin.listMembers, description: adminsOnly }).addSuccess(AdminMembers))
  .add(
    envelopes.declare({
      ...admin.addMember,
      description: `Users exist once they have signed in. ${adminsOnly}`
    }).addSuccess(withStatus(AdminMemberData, 201, "AdminMemberData"))
  )
  .add(envelopes.declare({ ...admin.removeMember, description: adminsOnly }))
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
    envelopes.declare({
      ...admin.getUser,
      description: adminsOnly
    }).addSuccess(Single(AdminUser, "AdminUserData"))
  )
  .middleware(OverviewAuthentication)
  .pipe(envelopes.group(...API_ROUTE_ERRORS))
  .prefix(OVERVIEW_PREFIX)
  .annotate(OpenApi.Title, "Platform admin")
  .annotate(OpenApi.Description, "Every organization, user and membership of the platform, for platform admins.")
