import type * as SqlClient from "@effect/sql/SqlClient"
import type { Fragment } from "@effect/sql/Statement"
import type { SortOrder } from "@roster/domain"

export interface Keyset {
  /** The condition "strictly after the position", if there is a position. */
  readonly after: ReadonlyArray<Fragment>
  readonly orderBy: Fragment
}

/**
 * One keyset page over `column` with the id as tiebreak. The row comparison
 * `(column, id) > (value, id)` lets PostgreSQL walk an index on (…, column, id) in either order.
 */
export const keyset = (
  sql: SqlClient.SqlClient,
  column: string,
  order: SortOrder,
  after: { readonly value: unknown; readonly id: string } | undefined
): Keyset => {
  const direction = sql.literal(order === "asc" ? "ASC" : "DESC")
  const beyond = sql.literal(order === "asc" ? ">" : "<")
  return {
    after: after === undefined ? [] : [sql`(${sql(column)}, id) ${beyond} (${after.value}, ${after.id})`],
    orderBy: sql`ORDER BY ${sql(column)} ${direction}, id ${direction}`
  }
}

/** A position's value for a sort on an instant: positions hold ISO strings. */
export const instant = (value: string | number): Date => new Date(value)
