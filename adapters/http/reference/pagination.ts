import { HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, MIN_PAGE_SIZE, SortOrder } from "@roster/domain"
import { Effect, Schema } from "effect"
import { operationTransform } from "../shared/openapi-model.js"
import { Count, oneOf } from "../shared/wire-fields.js"

/** Keyset pagination of the reference form: `limit`, an opaque `cursor`, `sort` and `order`. */

export const Limit = Schema.NumberFromString.pipe(
  Schema.int(),
  Schema.between(MIN_PAGE_SIZE, MAX_PAGE_SIZE)
).annotations({
  message: () => ({ message: `must be an integer from ${MIN_PAGE_SIZE} to ${MAX_PAGE_SIZE}`, override: true }),
  jsonSchema: {
    type: "integer",
    minimum: MIN_PAGE_SIZE,
    maximum: MAX_PAGE_SIZE,
    default: DEFAULT_PAGE_SIZE,
    description: `page size, ${MIN_PAGE_SIZE} to ${MAX_PAGE_SIZE}`
  }
})

export const limitParam = Schema.optionalWith(Limit, { default: () => DEFAULT_PAGE_SIZE, exact: true })

export const cursorParam = Schema.optionalWith(
  Schema.String.annotations({
    description: "`next_cursor` of the previous page; only valid with the same `sort` and `order`"
  }),
  { exact: true }
)

export const sortParam = <const Sorts extends readonly [string, ...Array<string>]>(sorts: Sorts) =>
  Schema.optionalWith(oneOf(Schema.Literal(...sorts), `sort field (default ${sorts[0]})`), {
    default: () => sorts[0],
    exact: true
  })

export const orderParam = (defaultOrder: SortOrder) =>
  Schema.optionalWith(oneOf(SortOrder, `sort direction (default ${defaultOrder})`), {
    default: () => defaultOrder,
    exact: true
  })

/** The body of every list: one page, the total of the whole list and the next page's cursor. */
export const Page = <S extends Schema.Schema.Any>(item: S, identifier: string) =>
  Schema.Struct({
    items: Schema.Array(item),
    total: Count("how many items the whole list holds, over all pages"),
    next_cursor: Schema.NullOr(Schema.String).annotations({
      description: "pass as `cursor` for the next page; null on the last page"
    })
  }).annotations({ identifier })

/** `?cursor=` replaced (or added) in the request's own path and query. */
const nextPageUrl = (requestUrl: string, cursor: string): string => {
  const url = new URL(requestUrl, "http://request.invalid")
  url.searchParams.set("cursor", cursor)
  return `${url.pathname}${url.search}`
}

/**
 * Sets `X-Total-Count` and, when there is a next page, `Link: <...>; rel="next"` (RFC 8288) on
 * the response of the current request.
 */
export const setPageHeaders = (page: { readonly total: number; readonly nextCursor: string | null }) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const headers: Record<string, string> = { "X-Total-Count": String(page.total) }
    if (page.nextCursor !== null) headers.Link = `<${nextPageUrl(request.url, page.nextCursor)}>; rel="next"`
    return HttpApp.appendPreResponseHandler((_request, response) =>
      Effect.succeed(HttpServerResponse.setHeaders(response, headers))
    )
  })

/** A keyset page of a use case, its headers set on the answer. */
export const paged = <P extends { readonly total: number; readonly nextCursor: string | null }, E, R>(list: Effect.Effect<P, E, R>) =>
  Effect.tap(list, setPageHeaders)

/** The body of a keyset page, each item as `f` shows it. */
export const pageOf = <A, B>(f: (a: A) => B) =>
(page: { readonly items: ReadonlyArray<A>; readonly total: number; readonly nextCursor: string | null }) => ({
  items: page.items.map(f),
  total: page.total,
  next_cursor: page.nextCursor
})

/** OpenAPI: the headers every list response carries. */
export const documentPageHeaders = operationTransform((operation) => {
  const ok = operation.responses["200"]
  if (ok !== undefined) {
    ok.headers = {
      "X-Total-Count": {
        description: "how many items the whole list holds, over all pages",
        schema: { type: "integer", minimum: 0 }
      },
      Link: {
        description:
          "`<url>; rel=\"next\"` (RFC 8288): the next page, with the same query and its cursor; absent on the last page",
        schema: { type: "string" }
      }
    }
  }
  return operation
})
