import { Schema } from "effect"
import { AdminMember, AdminOrganization, AdminUser } from "../shared/admin-schemas.js"
import { Count, strictInput, withStatus } from "../shared/wire-fields.js"
import { cursorParam, limitParam, Page } from "./pagination.js"

/** The platform-admin area in the reference form: bare JSON, keyset pages. */

export { AdminMember, AdminOrganization, AdminUser } from "../shared/admin-schemas.js"

export const AdminOrganizationList = Page(AdminOrganization, "AdminOrganizationList")

export const AddedMember = withStatus(AdminMember, 201, "AdminMember")

export const AdminMemberList = Schema.Struct({
  items: Schema.Array(AdminMember).annotations({ description: "every member, oldest membership first" }),
  total: Count("how many members the organization has")
}).annotations({ identifier: "AdminMemberList" })

export const AdminUserList = Page(AdminUser, "AdminUserList")

/** `limit` and `cursor` only: admin lists run oldest first. */
export const AdminListParams = Schema.Struct({
  cursor: cursorParam,
  limit: limitParam
}).annotations(strictInput)
