/**
 * Where the overview form's API is served: under `/v1`, and the same routes under the local
 * form `/api/v1`. The routes are declared once, under `/v1`.
 */
export const OVERVIEW_PREFIX = "/v1"
export const LOCAL_PREFIX = "/api/v1"

const under = (prefix: string, path: string) => path === prefix || path.startsWith(`${prefix}/`)

/** Whether a request path (or a path template) is one of the API's, under either prefix. */
export const isOverviewApiPath = (path: string): boolean => under(OVERVIEW_PREFIX, path) || under(LOCAL_PREFIX, path)

/** A request URL under the local prefix as the declared routes name it; other URLs as they are. */
export const declaredUrlOf = (url: string): string =>
  under(LOCAL_PREFIX, url.split("?")[0]!) ? `${OVERVIEW_PREFIX}${url.slice(LOCAL_PREFIX.length)}` : url
