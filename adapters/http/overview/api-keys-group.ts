import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { apiKeyEndpoints, ownersOnly } from "../shared/api-key-endpoints.js"
import { ApiKey, IssuedApiKey, ScopeDescription } from "../shared/api-key-schemas.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"
import { withStatus } from "../shared/wire-fields.js"
import { OverviewAuthentication } from "./authentication.js"
import { envelopes } from "./errors.js"
import { OVERVIEW_PREFIX } from "./paths.js"
import { NumberedList, PageListParams, Single } from "./schemas.js"

const apiKeys = apiKeyEndpoints("id")
const ApiKeyData = Single(ApiKey, "ApiKeyData")
const IssuedApiKeyData = Single(IssuedApiKey, "IssuedApiKeyData")
const ScopeList = Schema.Struct({ data: Schema.Array(ScopeDescription) }).annotations({ identifier: "ScopeList" })

export const ApiKeysGroup = HttpApiGroup.make("apiKeys")
  .add(envelopes.declare(apiKeys.scopes).addSuccess(ScopeList))
  .add(
    HttpApiEndpoint.get("list", "/api-keys")
      .setUrlParams(PageListParams)
      .addSuccess(NumberedList(ApiKey, "ApiKeyList"))
      .pipe(envelopes.describe({
        ...apiKeys.list,
        description: `One numbered page of the organization's keys, oldest first, without the keys themselves. ${ownersOnly}`
      }))
  )
  .add(
    envelopes.declare({
      ...apiKeys.create,
      description: "Makes a key with the scopes given (never more than the caller holds) and answers it in full, " +
        `this once. ${ownersOnly}`
    }).addSuccess(withStatus(IssuedApiKeyData, 201, "IssuedApiKeyData"))
  )
  .add(envelopes.declare({ ...apiKeys.get, description: ownersOnly }).addSuccess(ApiKeyData))
  .add(
    envelopes.declare({
      ...apiKeys.update,
      description: `Fields left out stay as they are; the key itself does not change. ${ownersOnly}`
    }).addSuccess(ApiKeyData)
  )
  .add(
    envelopes.declare({
      ...apiKeys.rotate,
      description: `A new secret, answered in full this once; the old one stops working at once. ${ownersOnly}`
    }).addSuccess(IssuedApiKeyData)
  )
  .add(envelopes.declare({ ...apiKeys.delete, description: `It stops working at once. ${ownersOnly}` }))
  .middleware(OverviewAuthentication)
  .pipe(envelopes.group(...API_ROUTE_ERRORS))
  .prefix(OVERVIEW_PREFIX)
  .annotate(OpenApi.Title, "API keys")
  .annotate(OpenApi.Description, "The organization's keys for the API, each with its scopes.")
