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
