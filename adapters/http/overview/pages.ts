import { numberedPage } from "@roster/application"
import type { NumberedPage } from "@roster/domain"

/** A numbered page in the list envelope. */
export const listOf = <A, B>(page: NumberedPage<A>, f: (a: A) => B) => ({
  data: page.items.map(f),
  meta: { total: page.total, page: page.page, per_page: page.perPage, total_pages: page.totalPages }
})

/** One resource in the envelope. */
export const dataOf = <A>(value: A) => ({ data: value })

/** A list query of this form as a use case reads it: `per_page` is `perPage`. */
export const pageRequestOf = <Q extends { readonly per_page: number }>({ per_page, ...query }: Q) => ({
  ...query,
  perPage: per_page
})

/**
 * A numbered page cut from a whole list a use case answers at once, for lists that stay short (an
 * organization's API keys, its webhook endpoints).
 */
export const listOfAll = <A, B>(
  all: ReadonlyArray<A>,
  request: { readonly page: number; readonly perPage: number },
  f: (a: A) => B
) => {
  const offset = (request.page - 1) * request.perPage
  return listOf(numberedPage(all.slice(offset, offset + request.perPage), all.length, request), f)
}
