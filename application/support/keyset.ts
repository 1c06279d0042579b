import { type Cursor, decodeCursor, encodeCursor, InvalidInput, isStorableText, type Reason, reason, type SortOrder } from "@roster/domain"
import { Effect, Either } from "effect"
import type { KeysetPosition } from "../ports/subscriber-repository.js"

const isoInstant = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/**
 * Whether a cursor's sort value has the kind its sort compares (an instant for `*_at`, a count
 * for `subscriber_count`, storable text otherwise), so that a hand-made cursor never reaches a
 * query as a value of the wrong type or as text no database can compare (a NUL character).
 */
const fitsSort = (sort: string, value: string | number): boolean => {
  if (sort.endsWith("_at")) return typeof value === "string" && isoInstant.test(value) && !Number.isNaN(Date.parse(value))
  if (sort === "subscriber_count") return typeof value === "number" && Number.isSafeInteger(value) && value >= 0
  return typeof value === "string" && isStorableText(value)
}

/** Reads the client's cursor for this sort and order; a foreign or mangled cursor is a 400 on `cursor`. */
export const positionFromCursor = (
  cursor: string | undefined,
  sort: string,
  order: SortOrder
): Effect.Effect<KeysetPosition | undefined, InvalidInput> =>
  cursor === undefined
    ? Effect.succeed(undefined)
    : decodeCursor(cursor, { sort, order }).pipe(
      Either.filterOrLeft((c: Cursor) => fitsSort(c.sort, c.value), (): Reason => reason("cursorForeign")),
      Either.map((c: Cursor): KeysetPosition => ({ value: c.value, id: c.id })),
      Either.mapLeft((why) => new InvalidInput({ field: "cursor", reason: why }))
    )

/**
 * Cuts one extra row off a fetch of `limit + 1`: the page, and the cursor of the next page when
 * the extra row shows there is one.
 */
export const cutPage = <A extends { readonly id: string }>(
  rows: ReadonlyArray<A>,
  limit: number,
  sort: string,
  order: SortOrder,
  sortValue: (row: A) => string | number
): { readonly items: ReadonlyArray<A>; readonly nextCursor: string | null } => {
  if (rows.length <= limit) return { items: rows, nextCursor: null }
  const items = rows.slice(0, limit)
  const last = items[items.length - 1]!
  return { items, nextCursor: encodeCursor({ sort, order, value: sortValue(last), id: last.id }) }
}
