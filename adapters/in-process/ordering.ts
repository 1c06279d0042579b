import type { KeysetPosition } from "@roster/application"
import type { SortOrder } from "@roster/domain"

/** Code-point order, as PostgreSQL's "C" collation compares text. */
export const compareText = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b))

export type SortKey = string | number

const compareKey = (a: SortKey, b: SortKey): number =>
  typeof a === "number" && typeof b === "number" ? a - b : compareText(String(a), String(b))

/** Compares rows by (sort value, id) in the given order. */
export const compareBy = <A extends { readonly id: string }>(value: (row: A) => SortKey, order: SortOrder) =>
(a: A, b: A): number => {
  const byValue = compareKey(value(a), value(b)) || compareText(a.id, b.id)
  return order === "asc" ? byValue : -byValue
}

/** One key of a numbered page's order; a null value sorts as PostgreSQL's: after every value ascending. */
export interface OrderKey<A> {
  readonly value: (row: A) => SortKey | null
  readonly order: SortOrder
}

const compareNullable = (a: SortKey | null, b: SortKey | null): number =>
  a === null ? (b === null ? 0 : 1) : b === null ? -1 : compareKey(a, b)

/** Compares rows by the keys in turn, then by id in the direction of the last key (ascending when there is none). */
export const compareByKeys = <A extends { readonly id: string }>(keys: ReadonlyArray<OrderKey<A>>) =>
(a: A, b: A): number => {
  for (const key of keys) {
    const byKey = compareNullable(key.value(a), key.value(b))
    if (byKey !== 0) return key.order === "asc" ? byKey : -byKey
  }
  const byId = compareText(a.id, b.id)
  return (keys[keys.length - 1]?.order ?? "asc") === "asc" ? byId : -byId
}

/** Whether `row` lies strictly after the keyset position in the given order. */
export const isAfter = <A extends { readonly id: string }>(
  row: A,
  value: (row: A) => SortKey,
  position: { readonly value: SortKey; readonly id: string },
  order: SortOrder
): boolean => {
  const byValue = compareKey(value(row), position.value) || compareText(row.id, position.id)
  return order === "asc" ? byValue > 0 : byValue < 0
}

/** Instants compare as milliseconds; a position holds them as ISO strings. */
export const instant = (value: SortKey): number => typeof value === "number" ? value : Date.parse(value)

/** A keyset page of rows oldest first (created_at, then id), strictly after the position. */
export const oldestFirstPage = <A extends { readonly id: string; readonly createdAt: Date }>(
  rows: Iterable<A>,
  query: { readonly after?: KeysetPosition | undefined; readonly offset?: number | undefined; readonly limit: number }
): ReadonlyArray<A> => {
  const createdAt = (row: A): number => row.createdAt.getTime()
  const after = query.after && { value: instant(query.after.value), id: query.after.id }
  return [...rows]
    .filter((row) => after === undefined || isAfter(row, createdAt, after, "asc"))
    .sort(compareBy(createdAt, "asc"))
    .slice(query.offset ?? 0, (query.offset ?? 0) + query.limit)
}
