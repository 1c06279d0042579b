import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { ApiKeyId } from "@roster/domain"
import { Schema } from "effect"
import {
  ApiKey,
  CreateApiKeyRequest,
  IssuedApiKey,
  ScopeDescription,
  UpdateApiKeyRequest
} from "../shared/api-key-schemas.js"
import { IdInput, withStatus } from "../shared/wire-fields.js"
import { OverviewAuthentication } from "./authentication.js"
import { OVERVIEW_PREFIX } from "./paths.js"
import { NumberedList, PageListParams, Single } from "./schemas.js"
import { NoFields, optionalBody } from "../shared/action-body.js"

const ApiKeyData = Single(ApiKey, "ApiKeyData")
const IssuedApiKeyData = Single(IssuedApiKey, "IssuedApiKeyData")
const ApiKeyPath = Schema.Struct({ id: IdInput(ApiKeyId, "the API key's id") })
const ScopeList = Schema.Struct({ data: Schema.Array(ScopeDescription) }).annotations({ identifier: "ScopeList" })

const ownersOnly = "Owners only: a session with the owner role or a key with scope `*`; anyone else gets 403."

export const ApiKeysGroup = HttpApiGroup.make("apiKeys")
  .add(
    HttpApiEndpoint.get("scopes", "/api-keys/scopes")
      .addSuccess(ScopeList)
      .annotateContext(OpenApi.annotations({
        summary: "List the scopes",
        description: "Every scope a key can hold, with what it allows. Any authenticated caller."
      }))
  )
  .add(
    HttpApiEndpoint.get("list", "/api-keys")
      .setUrlParams(PageListParams)
      .addSuccess(NumberedList(ApiKey, "ApiKeyList"))
      .annotateContext(OpenApi.annotations({
        summary: "List API keys",
        description: `One numbered page of the organization's keys, oldest first, without the keys themselves. ${ownersOnly}`
      }))
  )
  .add(
    HttpApiEndpoint.post("create", "/api-keys")
      .setPayload(CreateApiKeyRequest)
      .addSuccess(withStatus(IssuedApiKeyData, 201, "IssuedApiKeyData"))
      .annotateContext(OpenApi.annotations({
        summary: "Create an API key",
        description: "Makes a key with the scopes given (never more than the caller holds) and answers it in full, " +
          `this once. ${ownersOnly}`
      }))
  )
  .add(
    HttpApiEndpoint.get("get", "/api-keys/:id")
      .setPath(ApiKeyPath)
      .addSuccess(ApiKeyData)
      .annotateContext(OpenApi.annotations({ summary: "Get an API key", description: ownersOnly }))
  )
  .add(
    HttpApiEndpoint.patch("update", "/api-keys/:id")
      .setPath(ApiKeyPath)
      .setPayload(UpdateApiKeyRequest)
      .addSuccess(ApiKeyData)
      .annotateContext(OpenApi.annotations({
        summary: "Rename an API key or change its scopes",
        description: `Fields left out stay as they are; the key itself does not change. ${ownersOnly}`
      }))
  )
  .add(
    HttpApiEndpoint.post("rotate", "/api-keys/:id/rotate")
      .setPath(ApiKeyPath)
      .setPayload(NoFields)
      .addSuccess(IssuedApiKeyData)
      .annotate(OpenApi.Transform, optionalBody)
      .annotateContext(OpenApi.annotations({
        summary: "Rotate an API key",
        description: `A new secret, answered in full this once; the old one stops working at once. ${ownersOnly}`
      }))
  )
  .add(
    HttpApiEndpoint.del("delete", "/api-keys/:id")
      .setPath(ApiKeyPath)
      .setPayload(NoFields)
      .annotate(OpenApi.Transform, optionalBody)
      .annotateContext(OpenApi.annotations({ summary: "Delete an API key", description: `It stops working at once. ${ownersOnly}` }))
  )
  .middleware(OverviewAuthentication)
  .prefix(OVERVIEW_PREFIX)
  .annotate(OpenApi.Title, "API keys")
  .annotate(OpenApi.Description, "The organization's keys for the API, each with its scopes.")
