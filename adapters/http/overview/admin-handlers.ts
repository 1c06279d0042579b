import { HttpApiBuilder } from "@effect/platform"
import { Admin } from "@roster/application"
import { Effect } from "effect"
import { newMember, organizationChanges, toAdminMember, toAdminOrganization, toAdminUser } from "../shared/admin-schemas.js"
import { respond } from "../shared/respond.js"
import { OverviewApi } from "./api.js"
import { dataOf, listOf, pageRequestOf } from "./pages.js"

export const AdminHandlersLive = HttpApiBuilder.group(OverviewApi, "admin", (handlers) =>
  Effect.gen(function*() {
    const admin = yield* Admin
    return handlers
      .handle("listOrganizations", ({ urlParams }) =>
        respond((caller) => admin.listOrganizationsPage(caller, pageRequestOf(urlParams)), (page) => listOf(page, toAdminOrganization)))
      .handle("getOrganization", ({ path }) =>
        respond((caller) => admin.getOrganization(caller, path.id), (o) => dataOf(toAdminOrganization(o))))
      .handle("updateOrganization", ({ path, payload }) =>
        respond((caller) => admin.updateOrganization(caller, path.id, organizationChanges(payload)), (o) => dataOf(toAdminOrganization(o))))
      .handle("deleteOrganization", ({ path }) => respond((caller) => admin.deleteOrganization(caller, path.id)))
      .handle("listMembers", ({ path }) =>
        respond((caller) => admin.listMembers(caller, path.id), (members) => dataOf(members.map(toAdminMember))))
      .handle("addMember", ({ path, payload }) =>
        respond((caller) => admin.addMember(caller, path.id, newMember(payload)), (member) => dataOf(toAdminMember(member))))
      .handle("removeMember", ({ path }) => respond((caller) => admin.removeMember(caller, path.id, path.user_id)))
      .handle("listUsers", ({ urlParams }) =>
        respond((caller) => admin.listUsersPage(caller, pageRequestOf(urlParams)), (page) => listOf(page, toAdminUser)))
      .handle("getUser", ({ path }) => respond((caller) => admin.getUser(caller, path.id), (user) => dataOf(toAdminUser(user))))
  }))
