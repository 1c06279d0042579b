import { HttpApiBuilder } from "@effect/platform"
import { ApiKeys } from "@roster/application"
import type { ApiKey as DomainApiKey } from "@roster/domain"
import { Effect } from "effect"
import { respond } from "../shared/respond.js"
import { scopeDescriptionList, toApiKey, toIssuedApiKey } from "../shared/api-key-schemas.js"
import { ReferenceApi } from "./api.js"

const scopeList = { items: scopeDescriptionList }

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
