import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { ApiKeyId } from "@roster/domain"
import { Schema } from "effect"
import { apiKeyEndpoints as apiKeys, ownersOnly } from "../shared/api-key-endpoints.js"
import { ApiKey, IssuedApiKey, ScopeDescription, UpdateApiKeyRequest } from "../shared/api-key-schemas.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"
import { IdInput, withStatus } from "../shared/wire-fields.js"
import { OverviewAuthentication } from "./authentication.js"
import { envelopes } from "./errors.js"
import { OVERVIEW_PREFIX } from "./paths.js"
import { NumberedList, PageListParams, Single } from "./schemas.js"
import { NoFields, optionalBody } from "../shared/action-body.js"

const ApiKeyData = Single(ApiKey, "ApiKeyData")
const IssuedApiKeyData = Single(IssuedApiKey, "IssuedApiKeyData")
const ApiKeyPath = Schema.Struct({ id: IdInput(ApiKeyId, "the API key's id") })
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
  .add(
    HttpApiEndpoint.get("get", "/api-keys/:id")
      .setPath(ApiKeyPath)
      .addSuccess(ApiKeyData)
      .pipe(envelopes.describe({ ...apiKeys.get, description: ownersOnly }))
  )
  .add(
    HttpApiEndpoint.patch("update", "/api-keys/:id")
      .setPath(ApiKeyPath)
      .setPayload(UpdateApiKeyRequest)
      .addSuccess(ApiKeyData)
      .pipe(envelopes.describe({
        ...apiKeys.update,
        description: `Fields left out stay as they are; the key itself does not change. ${ownersOnly}`
      }))
  )
  .add(
    HttpApiEndpoint.post("rotate", "/api-keys/:id/rotate")
      .setPath(ApiKeyPath)
      .setPayload(NoFields)
      .addSuccess(IssuedApiKeyData)
      .annotate(OpenApi.Transform, optionalBody)
      .pipe(envelopes.describe({
        ...apiKeys.rotate,
        description: `A new secret, answered in full this once; the old one stops working at once. ${ownersOnly}`
      }))
  )
  .add(
    HttpApiEndpoint.del("delete", "/api-keys/:id")
      .setPath(ApiKeyPath)
      .setPayload(NoFields)
      .annotate(OpenApi.Transform, optionalBody)
      .pipe(envelopes.describe({ ...apiKeys.delete, description: `It stops working at once. ${ownersOnly}` }))
  )
  .middleware(OverviewAuthentication)
  .pipe(envelopes.group(...API_ROUTE_ERRORS))
  .prefix(OVERVIEW_PREFIX)
  .annotate(OpenApi.Title, "API keys")
  .annotate(OpenApi.Description, "The organization's keys for the API, each with its scopes.")
