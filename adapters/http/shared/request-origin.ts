import type { HttpServerRequest } from "@effect/platform"

/**
 * Where a browser says a request comes from. The service's own pages are at `publicBaseUrl`, or
 * at whatever host the request was sent to.
 */

/** The browser says the request comes from another site (`Sec-Fetch-Site: cross-site`). */
export const isCrossSiteFetch = (request: HttpServerRequest.HttpServerRequest): boolean =>
  request.headers["sec-fetch-site"]?.trim().toLowerCase() === "cross-site"

/**
 * The request's `Origin` when it is not one of the service's own; `undefined` when it is, or when
 * there is none. `Origin: null` (an opaque origin) is foreign.
 */
export const foreignOrigin = (request: HttpServerRequest.HttpServerRequest, publicBaseUrl: string): string | undefined => {
  const origin = request.headers["origin"]
  if (origin === undefined || origin === new URL(publicBaseUrl).origin) return undefined
  const host = request.headers["host"]
  if (host !== undefined && URL.canParse(origin) && new URL(origin).host === host.trim().toLowerCase()) return undefined
  return origin
}
