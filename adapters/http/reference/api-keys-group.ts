import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import {
  ApiKey,
  ApiKeyList,
  ApiKeyPath,
  CreateApiKeyRequest,
  CreatedApiKey,
  RotatedApiKey,
  ScopeList,
  UpdateApiKeyRequest
} from "./api-key-schemas.js"
import { Authentication } from "./authentication.js"
import { problems } from "./problems.js"
import { API_ROUTE_ERRORS, BODY_ERRORS, POST_ERRORS } from "../shared/wire-errors.js"
import { NoFields, optionalBody } from "../shared/action-body.js"

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
    HttpApiEndpoint.post("create", "/api-keys")
      .setPayload(CreateApiKeyRequest)
      .addSuccess(CreatedApiKey)
      .pipe(problems.endpoint(...POST_ERRORS))
      .annotateContext(OpenApi.annotations({
        summary: "Create an API key",
        description: "Makes a key of the organization with the scopes given and answers it in full, this once: only a " +
          "hash is kept. `environment` `test` makes a `svc_test_` key. Scopes beyond the caller's own are 400 on " +
          `\`scopes\`. ${ownersOnly}`
      }))
  )
  .add(
    HttpApiEndpoint.get("list", "/api-keys")
      .addSuccess(ApiKeyList)
      .annotateContext(OpenApi.annotations({
        summary: "List API keys",
        description: `Every key of the organization, without the keys themselves. ${ownersOnly}`
      }))
  )
  .add(
    HttpApiEndpoint.get("get", "/api-keys/:api_key_id")
      .setPath(ApiKeyPath)
      .addSuccess(ApiKey)
      .pipe(problems.endpoint("not_found"))
      .annotateContext(OpenApi.annotations({
        summary: "Get an API key",
        description: `The key's record, without the key itself. ${ownersOnly}`
      }))
  )
  .add(
    HttpApiEndpoint.patch("update", "/api-keys/:api_key_id")
      .setPath(ApiKeyPath)
      .setPayload(UpdateApiKeyRequest)
      .addSuccess(ApiKey)
      .pipe(problems.endpoint("not_found", ...BODY_ERRORS))
      .annotateContext(OpenApi.annotations({
        summary: "Rename an API key or change its scopes",
        description: "Fields left out stay as they are; the key itself does not change. Scopes beyond the caller's own " +
          `are 400 on \`scopes\`. ${ownersOnly}`
      }))
  )
  .add(
    HttpApiEndpoint.post("rotate", "/api-keys/:api_key_id/rotate")
      .setPath(ApiKeyPath)
      .setPayload(NoFields)
      .addSuccess(RotatedApiKey)
      .pipe(problems.endpoint("not_found", ...POST_ERRORS))
      .annotate(OpenApi.Transform, optionalBody)
      .annotateContext(OpenApi.annotations({
        summary: "Rotate an API key",
        description: "Gives the key a new secret and answers it in full, this once; the old key stops working at once. " +
          `Name, scopes and id stay. ${ownersOnly}`
      }))
  )
  .add(
    HttpApiEndpoint.del("delete", "/api-keys/:api_key_id")
      .setPath(ApiKeyPath)
      .setPayload(NoFields)
      .pipe(problems.endpoint("not_found", ...BODY_ERRORS))
      .annotate(OpenApi.Transform, optionalBody)
      .annotateContext(OpenApi.annotations({
        summary: "Delete an API key",
        description: `Deletes the key; it stops working at once. ${ownersOnly}`
      }))
  )
  .middleware(Authentication)
  .pipe(problems.group(...API_ROUTE_ERRORS))
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "API keys")
  .annotate(
    OpenApi.Description,
    "Keys that let programs call the API for the organization, each with its scopes. Managing them is for owners."
  )
