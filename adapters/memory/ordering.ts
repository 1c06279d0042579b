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
  query: { readonly after?: KeysetPosition | undefined; readonly limit: number }
): ReadonlyArray<A> => {
  const createdAt = (row: A): number => row.createdAt.getTime()
  const after = query.after && { value: instant(query.after.value), id: query.after.id }
  return [...rows]
    .filter((row) => after === undefined || isAfter(row, createdAt, after, "asc"))
    .sort(compareBy(createdAt, "asc"))
    .slice(0, query.limit)
}
