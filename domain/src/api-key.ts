import { Option, Schema } from "effect"
import { ApiKeyId, OrganizationId } from "./ids.js"
import { Scope } from "./scope.js"
import { isStorableText, UNSTORABLE_TEXT, longerThan } from "./text.js"

/**
 * API keys read `svc_live_` or `svc_test_` followed by at least 32 base62 characters. Live keys
 * act for real; test keys work on the same data but never hand email to the provider.
 */
export const ApiKeyEnvironment = Schema.Literal("live", "test")
export type ApiKeyEnvironment = typeof ApiKeyEnvironment.Type

export const API_KEY_SECRET_LENGTH = 40
export const MIN_API_KEY_SECRET_LENGTH = 32
export const MAX_API_KEY_LENGTH = 128
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
const apiKeyPattern = /^svc_(live|test)_([0-9A-Za-z]{32,})$/

export const apiKeyPrefix = (environment: ApiKeyEnvironment): string => `svc_${environment}_`

export interface ParsedApiKey {
  readonly environment: ApiKeyEnvironment
  readonly key: string
}

/** Reads a presented key; `None` for anything that is not shaped like one of ours. */
export const parseApiKey = (presented: string): Option.Option<ParsedApiKey> => {
  if (presented.length > MAX_API_KEY_LENGTH) return Option.none()
  const match = apiKeyPattern.exec(presented)
  return match === null ? Option.none() : Option.some({ environment: match[1] as ApiKeyEnvironment, key: presented })
}

/**
 * Builds a key from random bytes (the caller supplies the randomness). Bytes of 248 and above are
 * skipped so that every base62 character is equally likely; ask for a few more bytes than
 * {@link API_KEY_SECRET_LENGTH}. Returns `None` when the bytes ran out.
 */
export const apiKeyFromRandomBytes = (environment: ApiKeyEnvironment, bytes: Uint8Array): Option.Option<string> => {
  let secret = ""
  for (const byte of bytes) {
    if (secret.length === API_KEY_SECRET_LENGTH) break
    if (byte < 248) secret += BASE62[byte % 62]
  }
  return secret.length === API_KEY_SECRET_LENGTH ? Option.some(apiKeyPrefix(environment) + secret) : Option.none()
}

/** What listings show of a key: its prefix with four characters, and its last four. */
export const apiKeyHint = (key: string): { readonly prefix: string; readonly lastFour: string } => {
  const cut = key.indexOf("_", 4) + 1
  return { prefix: key.slice(0, cut + 4), lastFour: key.slice(-4) }
}

export const MAX_API_KEY_NAME_LENGTH = 100

export const ApiKeyName = Schema.Trim.pipe(
  Schema.filter((s) => {
    if (s.length === 0) return "must not be empty"
    if (longerThan(s, MAX_API_KEY_NAME_LENGTH)) return `must be at most ${MAX_API_KEY_NAME_LENGTH} characters`
    if (/\p{Cc}/u.test(s)) return "must not contain control characters"
    if (!isStorableText(s)) return UNSTORABLE_TEXT
    return undefined
  }, { identifier: "ApiKeyName", examples: ["Production import"] })
)

export class ApiKey extends Schema.Class<ApiKey>("ApiKey")({
  id: ApiKeyId,
  organizationId: OrganizationId,
  name: Schema.String,
  environment: ApiKeyEnvironment,
  /** SHA-256 of the whole key, hex; the key itself is never stored. */
  keyHash: Schema.String,
  prefix: Schema.String,
  lastFour: Schema.String,
  scopes: Schema.Array(Scope),
  createdAt: Schema.DateFromSelf,
  lastUsedAt: Schema.NullOr(Schema.DateFromSelf),
  revokedAt: Schema.NullOr(Schema.DateFromSelf)
}) {}
