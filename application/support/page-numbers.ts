import {
  InvalidInput,
  MAX_PAGE_SIZE,
  MIN_PAGE_SIZE,
  type NumberedPage,
  pageCount,
  reason,
  type SortBy,
  type SortOrder
} from "@roster/domain"
import { Effect } from "effect"

/** Which numbered page to list, and in which order; sort fields are checked against the list's own. */
export interface PageNumberRequest {
  /** 1 for the first page. */
  readonly page: number
  /** Rows per page, 1 to 100. */
  readonly perPage: number
  /** The sort keys in turn; none means the list's default order. */
  readonly sort?: ReadonlyArray<{ readonly field: string; readonly order: SortOrder }> | undefined
}

/** Where one numbered page lies among the matching rows, and their order. */
export interface PageWindow<F extends string> {
  readonly offset: number
  readonly limit: number
  readonly sort: ReadonlyArray<SortBy<F>>
}

/**
 * Checks a request for a numbered page of a list sortable by `fields`: the page is a whole number
 * from 1, the page size 1 to 100, and each sort field one of the list's, named once.
 */
export const pageWindow = <F extends string>(
  request: PageNumberRequest,
  fields: ReadonlyArray<F>,
  defaultSort: ReadonlyArray<SortBy<F>>
): Effect.Effect<PageWindow<F>, InvalidInput> =>
  Effect.gen(function*() {
    if (!Number.isSafeInteger(request.page) || request.page < 1) {
      return yield* new InvalidInput({ field: "page", reason: reason("pageNumber") })
    }
    if (!Number.isInteger(request.perPage) || request.perPage < MIN_PAGE_SIZE || request.perPage > MAX_PAGE_SIZE) {
      return yield* new InvalidInput({
        field: "per_page",
        reason: reason("pageSize", { min: MIN_PAGE_SIZE, max: MAX_PAGE_SIZE })
      })
    }
    const offset = (request.page - 1) * request.perPage
    if (!Number.isSafeInteger(offset)) {
      return yield* new InvalidInput({ field: "page", reason: reason("pageBeyond") })
    }
    const requested = request.sort ?? []
    const sort: Array<SortBy<F>> = []
    for (const { field, order } of requested) {
      const known = fields.find((candidate) => candidate === field)
      if (known === undefined) {
        return yield* new InvalidInput({
          field: "sort",
          reason: reason("sortUnknown", { field, fields: fields.join(", ") })
        })
      }
      if (sort.some((key) => key.field === known)) {
        return yield* new InvalidInput({ field: "sort", reason: reason("sortTwice", { field }) })
      }
      sort.push({ field: known, order })
    }
    return { offset, limit: request.perPage, sort: sort.length === 0 ? defaultSort : sort }
  })

/** The numbered page that `items` are of, `total` rows matching in all. */
export const numberedPage = <A>(
  items: ReadonlyArray<A>,
  total: number,
  request: PageNumberRequest
): NumberedPage<A> => ({
  items,
  total,
  page: request.page,
  perPage: request.perPage,
  totalPages: pageCount(total, request.perPage)
})
