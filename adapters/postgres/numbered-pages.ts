import type * as SqlClient from "@effect/sql/SqlClient"
import type { Fragment } from "@effect/sql/Statement"
import type { SortOrder } from "@roster/domain"

/** One key of a numbered page's order: a column expression of a fixed list, never client text. */
export interface OrderKey {
  readonly expression: string
  readonly order: SortOrder
}

/**
 * `ORDER BY` the keys in turn, then the id in the direction of the last key (ascending when there
 * is none), so that every row has exactly one place and consecutive pages never overlap. A null
 * sorts after every value ascending and before every value descending.
 */
export const orderByKeys = (sql: SqlClient.SqlClient, keys: ReadonlyArray<OrderKey>): Fragment => {
  const direction = (order: SortOrder) => order === "asc" ? "ASC NULLS LAST" : "DESC NULLS FIRST"
  const last = keys[keys.length - 1]?.order ?? "asc"
  return sql.literal(
    `ORDER BY ${[...keys.map((key) => `${key.expression} ${direction(key.order)}`), `id ${direction(last)}`].join(", ")}`
  )
}
