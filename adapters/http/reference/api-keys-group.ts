import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { apiKeyEndpoints } from "../shared/api-key-endpoints.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"
import { ApiKey, ApiKeyList, CreatedApiKey, RotatedApiKey, ScopeList } from "./api-key-schemas.js"
import { Authentication } from "./authentication.js"
import { problems } from "./problems.js"

const apiKeys = apiKeyEndpoints("api_key_id")

export const ApiKeysGroup = HttpApiGroup.make("apiKeys")
  .add(problems.declare(apiKeys.scopes).addSuccess(ScopeList))
  .add(problems.declare(apiKeys.create).addSuccess(CreatedApiKey))
  .add(HttpApiEndpoint.get("list", "/api-keys").addSuccess(ApiKeyList).pipe(problems.describe(apiKeys.list)))
  .add(problems.declare(apiKeys.get).addSuccess(ApiKey))
  .add(problems.declare(apiKeys.update).addSuccess(ApiKey))
  .add(problems.declare(apiKeys.rotate).addSuccess(RotatedApiKey))
  .add(problems.declare(apiKeys.delete))
  .middleware(Authentication)
  .pipe(problems.group(...API_ROUTE_ERRORS))
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "API keys")
  .annotate(
    OpenApi.Description,
    "Keys that let programs call the API for the organization, each with its scopes. Managing them is for owners."
  )
