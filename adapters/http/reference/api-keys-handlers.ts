import { HttpApiBuilder } from "@effect/platform"
import { ApiKeys, type IssuedApiKey } from "@roster/application"
import { type ApiKey as DomainApiKey, scopeDescriptions, scopes } from "@roster/domain"
import { Effect } from "effect"
import { CurrentPrincipal } from "../current-principal.js"
import { ReferenceApi } from "./api.js"
import type { ApiKey, CreatedApiKey } from "./api-key-schemas.js"
import { answerWithProblem } from "./application-problems.js"

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

export const ApiKeysHandlersLive = HttpApiBuilder.group(ReferenceApi, "apiKeys", (handlers) =>
  Effect.gen(function*() {
    const apiKeys = yield* ApiKeys
    return handlers
      .handle("scopes", () => Effect.succeed(scopeList))
      .handle("create", ({ payload }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) =>
            apiKeys.issue(principal, { name: payload.name, scopes: payload.scopes, environment: payload.environment })
          ),
          Effect.map(toIssuedApiKey),
          answerWithProblem
        ))
      .handle("list", () =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) => apiKeys.list(principal)),
          Effect.map((keys) => ({ items: keys.map(toApiKey), total: keys.length })),
          answerWithProblem
        ))
      .handle("get", ({ path }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) => apiKeys.get(principal, path.api_key_id)),
          Effect.map(toApiKey),
          answerWithProblem
        ))
      .handle("update", ({ path, payload }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) =>
            apiKeys.update(principal, path.api_key_id, { name: payload.name, scopes: payload.scopes })
          ),
          Effect.map(toApiKey),
          answerWithProblem
        ))
      .handle("rotate", ({ path }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) => apiKeys.rotate(principal, path.api_key_id)),
          Effect.map(toIssuedApiKey),
          answerWithProblem
        ))
      .handle("delete", ({ path }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) => apiKeys.remove(principal, path.api_key_id)),
          answerWithProblem
        ))
  }))
