import { Either, Encoding, Schema } from "effect"
import { isUuid } from "./ids.js"
import { type Reason, reason } from "./reason.js"

export const MIN_PAGE_SIZE = 1
export const MAX_PAGE_SIZE = 100
export const DEFAULT_PAGE_SIZE = 50

export const SortOrder = Schema.Literal("asc", "desc")
export type SortOrder = typeof SortOrder.Type

/**
 * Where a keyset page ends: the sort it belongs to, the sort value and the id of the last row.
 * Clients see it only as an opaque string.
 */
export interface Cursor {
  readonly sort: string
  readonly order: SortOrder
  readonly value: string | number
  readonly id: string
}

const CursorJson = Schema.parseJson(
  Schema.Tuple(Schema.String, SortOrder, Schema.Union(Schema.String, Schema.Number), Schema.String)
)

export const encodeCursor = (cursor: Cursor): string =>
  Encoding.encodeBase64Url(
    Schema.encodeSync(CursorJson)([cursor.sort, cursor.order, cursor.value, cursor.id])
  )

/** Reads a cursor and checks that it belongs to the sort and order being asked for. */
export const decodeCursor = (
  text: string,
  expected: { readonly sort: string; readonly order: SortOrder }
): Either.Either<Cursor, Reason> =>
  Encoding.decodeBase64UrlString(text).pipe(
    Either.mapLeft((): Reason => reason("cursorForeign")),
    Either.flatMap((json) =>
      Schema.decodeUnknownEither(CursorJson)(json).pipe(Either.mapLeft((): Reason => reason("cursorForeign")))
    ),
    Either.filterOrLeft(([, , , id]) => isUuid(id), (): Reason => reason("cursorForeign")),
    Either.flatMap(([sort, order, value, id]) =>
      sort === expected.sort && order === expected.order
        ? Either.right({ sort, order, value, id })
        : Either.left(reason("cursorOfOtherSort", { sort, order }))
    )
  )

/** One keyset page: the rows, and the cursor of the next page when there is one. */
export interface Page<A> {
  readonly items: ReadonlyArray<A>
  readonly total: number
  readonly nextCursor: Cursor | null
}

/** One key of a sort over several fields: a field and its direction. */
export interface SortBy<F extends string = string> {
  readonly field: F
  readonly order: SortOrder
}

/**
 * Reads a sort written as comma-separated fields, each optionally prefixed with `-` for descending
 * (`-created_at,email`). Which fields exist is for the list to say; this reads the notation only.
 */
export const parseSortList = (text: string): Either.Either<ReadonlyArray<SortBy>, string> => {
  const keys: Array<SortBy> = []
  for (const part of text.split(",")) {
    const item = part.trim()
    const descending = item.startsWith("-")
    const field = descending ? item.slice(1) : item
    if (field.length === 0 || field.startsWith("-")) return Either.left("must be field names separated by commas, each with an optional '-'")
    keys.push({ field, order: descending ? "desc" : "asc" })
  }
  return Either.right(keys)
}

/** One numbered page: the rows, how many rows match in all, and where the page stands among them. */
export interface NumberedPage<A> {
  readonly items: ReadonlyArray<A>
  readonly total: number
  readonly page: number
  readonly perPage: number
  readonly totalPages: number
}

/** How many pages of `perPage` rows `total` rows fill; none when there are no rows. */
export const pageCount = (total: number, perPage: number): number => Math.ceil(total / perPage)
