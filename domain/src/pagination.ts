import { Either, Encoding, Schema } from "effect"
import { isUuid } from "./ids.js"

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
): Either.Either<Cursor, string> =>
  Encoding.decodeBase64UrlString(text).pipe(
    Either.mapLeft(() => "is not a cursor this service issued"),
    Either.flatMap((json) =>
      Schema.decodeUnknownEither(CursorJson)(json).pipe(Either.mapLeft(() => "is not a cursor this service issued"))
    ),
    Either.filterOrLeft(([, , , id]) => isUuid(id), () => "is not a cursor this service issued"),
    Either.flatMap(([sort, order, value, id]) =>
      sort === expected.sort && order === expected.order
        ? Either.right({ sort, order, value, id })
        : Either.left(`belongs to sort=${sort}&order=${order}; repeat the query with those, or drop the cursor`)
    )
  )

/** One keyset page: the rows, and the cursor of the next page when there is one. */
export interface Page<A> {
  readonly items: ReadonlyArray<A>
  readonly total: number
  readonly nextCursor: Cursor | null
}
