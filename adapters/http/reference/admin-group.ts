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
import { API_ROUTE_ERRORS, BODY_ERRORS, POST_ERRORS } from "../shared/wire-errors.js"
import { NoFields, optionalBody } from "../shared/action-body.js"

const adminsOnly = "Platform admins only: an API key with scope `*` or an owner's session, of an organization with " +
  "the platform-admin flag; anyone else gets 403."

export const AdminGroup = HttpApiGroup.make("admin")
  .add(
    HttpApiEndpoint.get("listOrganizations", "/admin/organizations")
      .setUrlParams(AdminListParams)
      .addSuccess(AdminOrganizationList)
      .annotate(OpenApi.Transform, documentPageHeaders)
      .annotateContext(OpenApi.annotations({
        summary: "List organizations",
        description: "One page of every organization on the platform, oldest first, with its subscriber and member " +
          `counts. Follow \`next_cursor\` (or the \`Link\` header) for the next page. ${adminsOnly}`
      }))
  )
  .add(
    HttpApiEndpoint.get("getOrganization", "/admin/organizations/:organization_id")
      .setPath(AdminOrganizationPath)
      .addSuccess(AdminOrganization)
      .pipe(problems.endpoint("not_found"))
      .annotateContext(OpenApi.annotations({
        summary: "Get an organization",
        description: `Any organization on the platform, with its subscriber and member counts. ${adminsOnly}`
      }))
  )
  .add(
    HttpApiEndpoint.patch("updateOrganization", "/admin/organizations/:organization_id")
      .setPath(AdminOrganizationPath)
      .setPayload(UpdateOrganizationRequest)
      .addSuccess(AdminOrganization)
      .pipe(problems.endpoint("not_found", ...BODY_ERRORS))
      .annotateContext(OpenApi.annotations({
        summary: "Rename, re-tier, flag or suspend an organization",
        description: "Fields left out stay as they are. A suspension takes effect at once: the organization's API keys " +
          "and its members' sessions answer 401 `unauthorized` until `suspended: false` lifts it. The organization " +
          "acting here cannot suspend itself or drop its own platform-admin flag (400 naming the field). " + adminsOnly
      }))
  )
  .add(
    HttpApiEndpoint.del("deleteOrganization", "/admin/organizations/:organization_id")
      .setPath(AdminOrganizationPath)
      .setPayload(NoFields)
      .pipe(problems.endpoint("not_found", ...BODY_ERRORS))
      .annotate(OpenApi.Transform, optionalBody)
      .annotateContext(OpenApi.annotations({
        summary: "Delete an organization",
        description: "Deletes the organization with everything it owns: subscribers, tags, API keys and memberships. " +
          "Its keys answer 401 at once. The organization acting here cannot delete itself (400 on " +
          `\`organization_id\`). ${adminsOnly}`
      }))
  )
  .add(
    HttpApiEndpoint.get("listMembers", "/admin/organizations/:organization_id/members")
      .setPath(AdminOrganizationPath)
      .addSuccess(AdminMemberList)
      .pipe(problems.endpoint("not_found"))
      .annotateContext(OpenApi.annotations({
        summary: "List an organization's members",
        description: `Every member of the organization with their role, oldest membership first. ${adminsOnly}`
      }))
  )
  .add(
    HttpApiEndpoint.post("addMember", "/admin/organizations/:organization_id/members")
      .setPath(AdminOrganizationPath)
      .setPayload(AddMemberRequest)
      .addSuccess(AddedMember)
      .pipe(problems.endpoint("not_found", ...POST_ERRORS))
      .annotateContext(OpenApi.annotations({
        summary: "Add a member, or change a member's role",
        description: "Makes the user a member of the organization with the role given, and answers 201 with the " +
          "membership as it now stands; for a user who is a member already, only the role changes (the answer is 201 " +
          "all the same, with the membership's first `created_at`). Takes effect at once for the user's sessions. " +
          `404 when the organization or the user does not exist. ${adminsOnly}`
      }))
  )
  .add(
    HttpApiEndpoint.del("removeMember", "/admin/organizations/:organization_id/members/:user_id")
      .setPath(AdminMemberPath)
      .setPayload(NoFields)
      .pipe(problems.endpoint("not_found", ...BODY_ERRORS))
      .annotate(OpenApi.Transform, optionalBody)
      .annotateContext(OpenApi.annotations({
        summary: "Remove a member",
        description: "Ends the user's membership; their sessions lose the organization at once (403). 404 when the " +
          `organization does not exist or the user is not a member of it. ${adminsOnly}`
      }))
  )
  .add(
    HttpApiEndpoint.get("listUsers", "/admin/users")
      .setUrlParams(AdminListParams)
      .addSuccess(AdminUserList)
      .annotate(OpenApi.Transform, documentPageHeaders)
      .annotateContext(OpenApi.annotations({
        summary: "List users",
        description: "One page of every signed-up user, oldest first, each with their organizations and roles. Follow " +
          `\`next_cursor\` (or the \`Link\` header) for the next page. ${adminsOnly}`
      }))
  )
  .add(
    HttpApiEndpoint.get("getUser", "/admin/users/:user_id")
      .setPath(AdminUserPath)
      .addSuccess(AdminUser)
      .pipe(problems.endpoint("not_found"))
      .annotateContext(OpenApi.annotations({
        summary: "Get a user",
        description: `A signed-up user with their organizations and roles. ${adminsOnly}`
      }))
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
