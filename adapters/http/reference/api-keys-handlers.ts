import { HttpApiBuilder } from "@effect/platform"
import { ApiKeys, type IssuedApiKey } from "@roster/application"
import { type ApiKey as DomainApiKey, scopeDescriptions, scopes } from "@roster/domain"
import { Effect } from "effect"
import { respond } from "../shared/respond.js"
import type { ApiKey, CreatedApiKey } from "./api-key-schemas.js"
import { ReferenceApi } from "./api.js"

const toApiKey = (apiKey: DomainApiKey): typeof ApiKey.Type => ({
  id: apiKey.id,
  name: apiKey.name,
  prefix: apiKey.prefix,
  last_four: apiKey.lastFour,
  scopes: apiKey.scopes,
  environment: apiKey.environment,
  created_at: apiKey.createdAt.toISOString(),
  last_used_at: apiKey.lastUsedAt === null ? null : apiKey.lastUsedAt.toISOString()
})

const toIssuedApiKey = ({ apiKey, key }: IssuedApiKey): typeof CreatedApiKey.Type => ({ ...toApiKey(apiKey), key })

const scopeList = { items: scopes.map((scope) => ({ scope, description: scopeDescriptions[scope] })) }

const toApiKeyList = (keys: ReadonlyArray<DomainApiKey>) => ({ items: keys.map(toApiKey), total: keys.length })

// The request bodies of this form name their fields as the use case does.
export const ApiKeysHandlersLive = HttpApiBuilder.group(ReferenceApi, "apiKeys", (handlers) =>
  Effect.gen(function*() {
    const apiKeys = yield* ApiKeys
    return handlers
      .handle("scopes", () => Effect.succeed(scopeList))
      .handle("create", ({ payload }) => respond((caller) => apiKeys.issue(caller, payload), toIssuedApiKey))
      .handle("list", () => respond(apiKeys.list, toApiKeyList))
      .handle("get", ({ path }) => respond((caller) => apiKeys.get(caller, path.api_key_id), toApiKey))
      .handle("update", ({ path, payload }) => respond((caller) => apiKeys.update(caller, path.api_key_id, payload), toApiKey))
      .handle("rotate", ({ path }) => respond((caller) => apiKeys.rotate(caller, path.api_key_id), toIssuedApiKey))
      .handle("delete", ({ path }) => respond((caller) => apiKeys.remove(caller, path.api_key_id)))
  }))
