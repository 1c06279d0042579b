import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { apiKeyEndpoints as apiKeys } from "../shared/api-key-endpoints.js"
import {
  ApiKey,
  ApiKeyList,
  ApiKeyPath,
  CreatedApiKey,
  RotatedApiKey,
  ScopeList,
  UpdateApiKeyRequest
} from "./api-key-schemas.js"
import { Authentication } from "./authentication.js"
import { problems } from "./problems.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"
import { NoFields, optionalBody } from "../shared/action-body.js"

export const ApiKeysGroup = HttpApiGroup.make("apiKeys")
  .add(problems.declare(apiKeys.scopes).addSuccess(ScopeList))
  .add(problems.declare(apiKeys.create).addSuccess(CreatedApiKey))
  .add(HttpApiEndpoint.get("list", "/api-keys").addSuccess(ApiKeyList).pipe(problems.describe(apiKeys.list)))
  .add(
    HttpApiEndpoint.get("get", "/api-keys/:api_key_id")
      .setPath(ApiKeyPath)
      .addSuccess(ApiKey)
      .pipe(problems.describe(apiKeys.get))
  )
  .add(
    HttpApiEndpoint.patch("update", "/api-keys/:api_key_id")
      .setPath(ApiKeyPath)
      .setPayload(UpdateApiKeyRequest)
      .addSuccess(ApiKey)
      .pipe(problems.describe(apiKeys.update))
  )
  .add(
    HttpApiEndpoint.post("rotate", "/api-keys/:api_key_id/rotate")
      .setPath(ApiKeyPath)
      .setPayload(NoFields)
      .addSuccess(RotatedApiKey)
      .annotate(OpenApi.Transform, optionalBody)
      .pipe(problems.describe(apiKeys.rotate))
  )
  .add(
    HttpApiEndpoint.del("delete", "/api-keys/:api_key_id")
      .setPath(ApiKeyPath)
      .setPayload(NoFields)
      .annotate(OpenApi.Transform, optionalBody)
      .pipe(problems.describe(apiKeys.delete))
  )
  .middleware(Authentication)
  .pipe(problems.group(...API_ROUTE_ERRORS))
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "API keys")
  .annotate(
    OpenApi.Description,
    "Keys that let programs call the API for the organization, each with its scopes. Managing them is for owners."
  )
