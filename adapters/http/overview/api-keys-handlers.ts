import { HttpApiBuilder } from "@effect/platform"
import { ApiKeys, numberedPage } from "@roster/application"
import type { ApiKey } from "@roster/domain"
import { Effect } from "effect"
import { scopeDescriptionList, toApiKey, toIssuedApiKey } from "../shared/api-key-schemas.js"
import { respond } from "../shared/respond.js"
import { OverviewApi } from "./api.js"
import { dataOf, listOf, pageRequestOf } from "./pages.js"

/** An organization has a handful of keys: the use case answers them all, and this form numbers the pages. */
const pageOf = (keys: ReadonlyArray<ApiKey>, request: { readonly page: number; readonly perPage: number }) => {
  const offset = (request.page - 1) * request.perPage
  return listOf(numberedPage(keys.slice(offset, offset + request.perPage), keys.length, request), toApiKey)
}

export const ApiKeysHandlersLive = HttpApiBuilder.group(OverviewApi, "apiKeys", (handlers) =>
  Effect.gen(function*() {
    const apiKeys = yield* ApiKeys
    return handlers
      .handle("scopes", () => Effect.succeed(dataOf(scopeDescriptionList)))
      .handle("list", ({ urlParams }) => respond(apiKeys.list, (keys) => pageOf(keys, pageRequestOf(urlParams))))
      .handle("create", ({ payload }) => respond((caller) => apiKeys.issue(caller, payload), (issued) => dataOf(toIssuedApiKey(issued))))
      .handle("get", ({ path }) => respond((caller) => apiKeys.get(caller, path.id), (key) => dataOf(toApiKey(key))))
      .handle("update", ({ path, payload }) =>
        respond((caller) => apiKeys.update(caller, path.id, payload), (key) => dataOf(toApiKey(key))))
      .handle("rotate", ({ path }) => respond((caller) => apiKeys.rotate(caller, path.id), (issued) => dataOf(toIssuedApiKey(issued))))
      .handle("delete", ({ path }) => respond((caller) => apiKeys.remove(caller, path.id)))
  }))
