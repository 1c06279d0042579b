import { HttpApiSecurity, OpenApi } from "@effect/platform"

/** The header an API key is presented in. */
export const API_KEY_HEADER = "X-API-Key"

const headerName = API_KEY_HEADER.toLowerCase()

export const apiKeyScheme = HttpApiSecurity.apiKey({ in: "header", key: API_KEY_HEADER }).pipe(
  HttpApiSecurity.annotate(
    OpenApi.Description,
    "An API key of the organization (`svc_live_...` or `svc_test_...`), sent in the `X-API-Key` header. " +
      "The key's organization is the one acted for; its scopes decide what it may do. When a request carries " +
      "both a key and a session cookie, the key decides alone."
  )
)

/**
 * The API key a request presents, trimmed, or `undefined` when its `X-API-Key` header is missing or
 * blank. The authentication of the HttpApi and the direct lane read the key through this alone, so
 * that both take the same requests for keyed ones.
 */
export const presentedApiKey = (
  headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
): string | undefined => {
  const value = headers[headerName]
  if (typeof value !== "string") return undefined
  const key = value.trim()
  return key === "" ? undefined : key
}
