import { type Cursor, decodeCursor, encodeCursor, InvalidInput, type SortOrder } from "@roster/domain"
import { Effect, Either } from "effect"
import type { KeysetPosition } from "./ports/subscriber-repository.js"

/** Reads the client's cursor for this sort and order; a foreign or mangled cursor is a 400 on `cursor`. */
export const positionFromCursor = (
  cursor: string | undefined,
  sort: string,
  order: SortOrder
): Effect.Effect<KeysetPosition | undefined, InvalidInput> =>
  cursor === undefined
    ? Effect.succeed(undefined)
    : decodeCursor(cursor, { sort, order }).pipe(
      Either.map((c: Cursor): KeysetPosition => ({ value: c.value, id: c.id })),
      Either.mapLeft((problem) => new InvalidInput({ field: "cursor", problem }))
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
