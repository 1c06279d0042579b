import type * as SqlClient from "@effect/sql/SqlClient"
import type { Fragment } from "@effect/sql/Statement"

/** The columns each domain value is read from (keys such as `email_key` are for the database only). */
export const organizationColumns = [
  "id", "name", "slug", "tier", "is_platform_admin", "suspended_at", "custom_rate_limit", "created_at", "updated_at"
] as const

/** The columns of the organization in table `from`, and its subscriber count (the sum of its slots). */
export const organizationSelectList = (
  sql: SqlClient.SqlClient,
  options: { readonly from: string; readonly prefix?: string }
): Fragment => {
  const count = `(SELECT greatest(coalesce(sum(used), 0), 0)::integer FROM organization_subscriber_slots ` +
    `WHERE organization_id = ${options.from}.id) AS "${options.prefix ?? ""}subscriber_count"`
  return sql.literal(
    [...organizationColumns.map((column) => {
      const qualified = `${options.from}.${column}`
      return options.prefix === undefined ? qualified : `${qualified} AS "${options.prefix}${column}"`
    }), count].join(", ")
  )
}

export const subscriberColumns = [
  "id", "organization_id", "email", "status", "metadata", "first_name", "last_name", "created_at", "updated_at"
] as const

export const tagColumns = [
  "id", "organization_id", "name", "slug", "description", "display_name", "category", "visibility", "metadata",
  "subscriber_count", "created_at", "updated_at"
] as const

export const apiKeyColumns = [
  "id", "organization_id", "name", "environment", "key_hash", "prefix", "last_four", "scopes", "created_at",
  "last_used_at", "revoked_at"
] as const

export const userColumns = ["id", "email", "created_at", "last_signed_in_at"] as const

export const membershipColumns = ["organization_id", "user_id", "role", "created_at"] as const

export const magicLinkColumns = ["token_hash", "email", "locale", "created_at", "expires_at", "consumed_at"] as const

export const sessionColumns = ["id", "user_id", "created_at", "expires_at", "revoked_at"] as const

/**
 * A select list: `t.id, t.name` with a table alias; with a prefix, each column is also renamed
 * (`o.id AS "organization.id"`) so that two tables' columns can share one row.
 */
export const selectList = (
  sql: SqlClient.SqlClient,
  columns: ReadonlyArray<string>,
  options: { readonly from?: string; readonly prefix?: string } = {}
): Fragment =>
  sql.literal(
    columns
      .map((column) => {
        const qualified = options.from === undefined ? column : `${options.from}.${column}`
        return options.prefix === undefined ? qualified : `${qualified} AS "${options.prefix}${column}"`
      })
      .join(", ")
  )
