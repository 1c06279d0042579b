import { HttpApiBuilder } from "@effect/platform"
import { Admin } from "@roster/application"
import { Effect } from "effect"
import { newMember, organizationChanges, toAdminMember, toAdminOrganization, toAdminUser } from "../shared/admin-schemas.js"
import { respond } from "../shared/respond.js"
import { ReferenceApi } from "./api.js"
import { paged, pageOf } from "./pagination.js"

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
