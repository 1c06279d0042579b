import { ApiKeyEnvironment, ApiKeyName, MAX_API_KEY_NAME_LENGTH, Scope, scopes } from "@roster/domain"
import { Schema } from "effect"
import type { IssuedApiKey as DomainIssuedApiKey } from "@roster/application"
import { type ApiKey as DomainApiKey, scopeDescriptions } from "@roster/domain"
import { oneOf, strictInput, Timestamp, Uuid } from "./wire-fields.js"

/** API keys as both forms show and accept them. The full key is shown only when made. */

const ScopeOutput = Scope.annotations({ description: "a permission; `*` grants all of them" })

export const ApiKey = Schema.Struct({
  id: Uuid,
  name: Schema.String,
  prefix: Schema.String.annotations({ description: "the key's first characters (`svc_live_` or `svc_test_` and four more)" }),
  last_four: Schema.String.annotations({ description: "the key's last four characters" }),
  scopes: Schema.Array(ScopeOutput),
  environment: ApiKeyEnvironment.annotations({
    description: "`live` keys act for real; `test` keys work on the same data but never hand email to the provider"
  }),
  created_at: Timestamp,
  last_used_at: Schema.NullOr(Timestamp).annotations({ description: "when the key last authenticated, to the minute; null if never" }),
  revoked_at: Schema.NullOr(Timestamp).annotations({
    description: "when an operator revoked the key (`roster api-key revoke`), after which it is refused; null while it works"
  })
}).annotations({ identifier: "ApiKey", description: "an API key, without the key itself" })

/** A key as made or rotated: the record and the full key, which is never shown again. */
export const IssuedApiKey = Schema.Struct({
  ...ApiKey.fields,
  key: Schema.String.annotations({
    description: "the full key, for the X-API-Key header; shown this once and unrecoverable afterwards"
  })
})

export const ScopeDescription = Schema.Struct({
  scope: ScopeOutput,
  description: Schema.String.annotations({ description: "what the scope allows" })
}).annotations({ identifier: "ScopeDescription" })

const NameInput = ApiKeyName.annotations({
  jsonSchema: {
    type: "string",
    minLength: 1,
    maxLength: MAX_API_KEY_NAME_LENGTH,
    description: "a name to recognise the key by; trimmed"
  }
})

/** At most this many entries in `scopes`: each scope once, and a little room. */
const MAX_SCOPE_ENTRIES = 2 * scopes.length

const ScopesInput = Schema.Array(Schema.Unknown).pipe(
  Schema.minItems(1, { message: () => "must name at least one scope" }),
  Schema.maxItems(MAX_SCOPE_ENTRIES, { message: () => `must hold at most ${MAX_SCOPE_ENTRIES} scopes` }),
  Schema.compose(Schema.Array(oneOf(Scope, "a scope")), { strict: false })
).annotations({
  jsonSchema: {
    type: "array",
    items: { type: "string", enum: [...scopes] },
    minItems: 1,
    maxItems: MAX_SCOPE_ENTRIES,
    description: "what the key may do (`GET /api/v1/api-keys/scopes` lists them); never more than the caller holds"
  }
})

export const CreateApiKeyRequest = Schema.Struct({
  name: NameInput,
  scopes: ScopesInput,
  environment: Schema.optionalWith(oneOf(ApiKeyEnvironment, "`live` (default) or `test`"), {
    exact: true,
    default: () => "live" as const
  })
}).annotations({ identifier: "CreateApiKeyRequest", ...strictInput })

export const UpdateApiKeyRequest = Schema.Struct({
  name: Schema.optionalWith(NameInput, { exact: true }),
  scopes: Schema.optionalWith(ScopesInput.annotations({ description: "replaces every scope of the key" }), { exact: true })
}).annotations({
  identifier: "UpdateApiKeyRequest",
  description: "fields left out stay as they are; the key itself does not change (rotate it for a new one)",
  ...strictInput
})

export const toApiKey = (apiKey: DomainApiKey): typeof ApiKey.Type => ({
  id: apiKey.id,
  name: apiKey.name,
  prefix: apiKey.prefix,
  last_four: apiKey.lastFour,
  scopes: apiKey.scopes,
  environment: apiKey.environment,
  created_at: apiKey.createdAt.toISOString(),
  last_used_at: apiKey.lastUsedAt === null ? null : apiKey.lastUsedAt.toISOString(),
  revoked_at: apiKey.revokedAt === null ? null : apiKey.revokedAt.toISOString()
})

export const toIssuedApiKey = ({ apiKey, key }: DomainIssuedApiKey): typeof IssuedApiKey.Type => ({ ...toApiKey(apiKey), key })

/** Every scope with what it allows. */
export const scopeDescriptionList: ReadonlyArray<typeof ScopeDescription.Type> = scopes.map((scope) => ({
  scope,
  description: scopeDescriptions[scope]
}))
