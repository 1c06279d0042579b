/**
 * What every route under `/api/v1` shares beyond authentication: its prefix, the rate-limit
 * headers of every answer, and `Idempotency-Key` on POST. Probes, docs, error pages and sign-in
 * are outside.
 */
export const API_PREFIX = "/api/v1"

/** Whether a request path (or a path template) is one of the API's. */
export const isApiPath = (path: string): boolean => path === API_PREFIX || path.startsWith(`${API_PREFIX}/`)

export const RATE_LIMIT_HEADERS = {
  limit: "X-RateLimit-Limit",
  remaining: "X-RateLimit-Remaining",
  reset: "X-RateLimit-Reset"
} as const

export const IDEMPOTENCY_KEY_HEADER = "Idempotency-Key"

/** Set to `true` on an answer that was kept for an `Idempotency-Key` and is given again. */
export const REPLAYED_HEADER = "Idempotent-Replayed"
