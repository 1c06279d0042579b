import type { HttpServerRequest } from "@effect/platform"

/** The request path without its query string, as problems name it in `instance`. */
export const pathOf = (request: HttpServerRequest.HttpServerRequest): string => {
  const url = request.url
  const q = url.indexOf("?")
  return q === -1 ? url : url.slice(0, q)
}
