import { HttpApiEndpoint } from "@effect/platform"
import { OrganizationId, UserId } from "@roster/domain"
import { withoutBody } from "./action-body.js"
import { AddMemberRequest, UpdateOrganizationRequest } from "./admin-schemas.js"
import { endpointDescription, sharedEndpoint } from "./endpoint-description.js"
import { idParam } from "./id-param.js"
import { BODY_ERRORS, POST_ERRORS } from "./wire-errors.js"
import { IdInput } from "./wire-fields.js"

export const adminsOnly = "Platform admins only: an API key with scope `*` or an owner's session, of an organization with " +
  "the platform-admin flag; anyone else gets 403."

/**
 * The admin endpoints as every wire form describes them (the overview form in fewer words), the
 * organization's and the user's ids named `keys` in their paths (a member's is `user_id` in every
 * form).
 */
export const adminEndpoints = <const O extends string, const U extends string>(keys: {
  readonly organization: O
  readonly user: U
}) => {
  const organization = idParam(keys.organization, IdInput(OrganizationId, "the organization's id"))
  const user = idParam(keys.user, IdInput(UserId, "the user's id"))
  const one = `/admin/organizations${organization.segment}` as const
  const member = organization.with({ user_id: IdInput(UserId, "the member's user id") })
  return {
    listOrganizations: endpointDescription({
      summary: "List organizations",
      description: "One page of every organization on the platform, oldest first, with its subscriber and member " +
        `counts. Follow \`next_cursor\` (or the \`Link\` header) for the next page. ${adminsOnly}`,
      errors: []
    }),
    getOrganization: sharedEndpoint({
      endpoint: HttpApiEndpoint.get("getOrganization", one).setPath(organization.path),
      summary: "Get an organization",
      description: `Any organization on the platform, with its subscriber and member counts. ${adminsOnly}`,
      errors: ["not_found"]
    }),
    updateOrganization: sharedEndpoint({
      endpoint: HttpApiEndpoint.patch("updateOrganization", one)
        .setPath(organization.path)
        .setPayload(UpdateOrganizationRequest),
      summary: "Rename, re-tier, flag or suspend an organization",
      description: "Fields left out stay as they are. A suspension takes effect at once: the organization's API keys " +
        "and its members' sessions answer 401 `unauthorized` until `suspended: false` lifts it. The organization " +
        "acting here cannot suspend itself or drop its own platform-admin flag (400 naming the field). " + adminsOnly,
      errors: ["not_found", ...BODY_ERRORS]
    }),
    deleteOrganization: sharedEndpoint({
      endpoint: HttpApiEndpoint.del("deleteOrganization", one)
        .setPath(organization.path)
        .pipe(withoutBody),
      summary: "Delete an organization",
      description: "Deletes the organization with everything it owns: subscribers, tags, API keys and memberships. " +
        "Its keys answer 401 at once. The organization acting here cannot delete itself (400 on " +
        `\`organization_id\`). ${adminsOnly}`,
      errors: ["not_found", ...BODY_ERRORS]
    }),
    listMembers: sharedEndpoint({
      endpoint: HttpApiEndpoint.get("listMembers", `${one}/members`).setPath(organization.path),
      summary: "List an organization's members",
      description: `Every member of the organization with their role, oldest membership first. ${adminsOnly}`,
      errors: ["not_found"]
    }),
    addMember: sharedEndpoint({
      endpoint: HttpApiEndpoint.post("addMember", `${one}/members`).setPath(organization.path).setPayload(AddMemberRequest),
      summary: "Add a member, or change a member's role",
      description: "Makes the user a member of the organization with the role given, and answers 201 with the " +
        "membership as it now stands; for a user who is a member already, only the role changes (the answer is 201 " +
        "all the same, with the membership's first `created_at`). Takes effect at once for the user's sessions. " +
        `404 when the organization or the user does not exist. ${adminsOnly}`,
      errors: ["not_found", ...POST_ERRORS]
    }),
    removeMember: sharedEndpoint({
      endpoint: HttpApiEndpoint.del("removeMember", `${one}/members/:user_id`)
        .setPath(member)
        .pipe(withoutBody),
      summary: "Remove a member",
      description: "Ends the user's membership; their sessions lose the organization at once (403). 404 when the " +
        `organization does not exist or the user is not a member of it. ${adminsOnly}`,
      errors: ["not_found", ...BODY_ERRORS]
    }),
    listUsers: endpointDescription({
      summary: "List users",
      description: "One page of every signed-up user, oldest first, each with their organizations and roles. Follow " +
        `\`next_cursor\` (or the \`Link\` header) for the next page. ${adminsOnly}`,
      errors: []
    }),
    getUser: sharedEndpoint({
      endpoint: HttpApiEndpoint.get("getUser", `/admin/users${user.segment}`).setPath(user.path),
      summary: "Get a user",
      description: `A signed-up user with their organizations and roles. ${adminsOnly}`,
      errors: ["not_found"]
    })
  }
}
