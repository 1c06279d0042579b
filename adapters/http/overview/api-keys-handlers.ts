import { HttpApiBuilder } from "@effect/platform"
import { ApiKeys } from "@roster/application"
import { Effect } from "effect"
import { scopeDescriptionList, toApiKey, toIssuedApiKey } from "../shared/api-key-schemas.js"
import { respond } from "../shared/respond.js"
import { OverviewApi } from "./api.js"
import { dataOf, listOfAll, pageRequestOf } from "./pages.js"

export const ApiKeysHandlersLive = HttpApiBuilder.group(OverviewApi, "apiKeys", (handlers) =>
  Effect.gen(function*() {
    const apiKeys = yield* ApiKeys
    return handlers
      .handle("scopes", () => Effect.succeed(dataOf(scopeDescriptionList)))
      .handle("list", ({ urlParams }) => respond(apiKeys.list, (keys) => listOfAll(keys, pageRequestOf(urlParams), toApiKey)))
      .handle("create", ({ payload }) => respond((caller) => apiKeys.issue(caller, payload), (issued) => dataOf(toIssuedApiKey(issued))))
      .handle("get", ({ path }) => respond((caller) => apiKeys.get(caller, path.id), (key) => dataOf(toApiKey(key))))
      .handle("update", ({ path, payload }) =>
        respond((caller) => apiKeys.update(caller, path.id, payload), (key) => dataOf(toApiKey(key))))
      .handle("rotate", ({ path }) => respond((caller) => apiKeys.rotate(caller, path.id), (issued) => dataOf(toIssuedApiKey(issued))))
      .handle("delete", ({ path }) => respond((caller) => apiKeys.remove(caller, path.id)))
  }))
