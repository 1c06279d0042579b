import { HttpApiEndpoint } from "@effect/platform"
import { ApiKeyId } from "@roster/domain"
import { withoutBody } from "./action-body.js"
import { CreateApiKeyRequest, UpdateApiKeyRequest } from "./api-key-schemas.js"
import { endpointDescription, sharedEndpoint } from "./endpoint-description.js"
import { idParam } from "./id-param.js"
import { BODY_ERRORS, POST_ERRORS } from "./wire-errors.js"
import { IdInput } from "./wire-fields.js"

/** Who may manage keys, as each endpoint's description ends. */
export const ownersOnly = "Owners only: a session with the owner role or a key with scope `*`; anyone else gets 403."

/**
 * The API key endpoints as every wire form describes them (the overview form in fewer words), the
 * key's id named `key` in their paths.
 */
export const apiKeyEndpoints = <const K extends string>(key: K) => {
  const apiKey = idParam(key, IdInput(ApiKeyId, "the API key's id"))
  const address = `/api-keys${apiKey.segment}` as const
  return {
    scopes: sharedEndpoint({
      endpoint: HttpApiEndpoint.get("scopes", "/api-keys/scopes"),
      summary: "List the scopes",
      description: "Every scope a key can hold, with what it allows. Any authenticated caller.",
      errors: []
    }),
    create: sharedEndpoint({
      endpoint: HttpApiEndpoint.post("create", "/api-keys").setPayload(CreateApiKeyRequest),
      summary: "Create an API key",
      description: "Makes a key of the organization with the scopes given and answers it in full, this once: only a " +
        "hash is kept. `environment` `test` makes a `svc_test_` key. Scopes beyond the caller's own are 400 on " +
        `\`scopes\`. ${ownersOnly}`,
      errors: POST_ERRORS
    }),
    list: endpointDescription({
      summary: "List API keys",
      description: `Every key of the organization, without the keys themselves. ${ownersOnly}`,
      errors: []
    }),
    get: sharedEndpoint({
      endpoint: HttpApiEndpoint.get("get", address).setPath(apiKey.path),
      summary: "Get an API key",
      description: `The key's record, without the key itself. ${ownersOnly}`,
      errors: ["not_found"]
    }),
    update: sharedEndpoint({
      endpoint: HttpApiEndpoint.patch("update", address).setPath(apiKey.path).setPayload(UpdateApiKeyRequest),
      summary: "Rename an API key or change its scopes",
      description: "Fields left out stay as they are; the key itself does not change. Scopes beyond the caller's own " +
        `are 400 on \`scopes\`. ${ownersOnly}`,
      errors: ["not_found", ...BODY_ERRORS]
    }),
    rotate: sharedEndpoint({
      endpoint: HttpApiEndpoint.post("rotate", `${address}/rotate`)
        .setPath(apiKey.path)
        .pipe(withoutBody),
      summary: "Rotate an API key",
      description: "Gives the key a new secret and answers it in full, this once; the old key stops working at once. " +
        `Name, scopes and id stay. ${ownersOnly}`,
      errors: ["not_found", ...POST_ERRORS]
    }),
    delete: sharedEndpoint({
      endpoint: HttpApiEndpoint.del("delete", address)
        .setPath(apiKey.path)
        .pipe(withoutBody),
      summary: "Delete an API key",
      description: `Deletes the key; it stops working at once. ${ownersOnly}`,
      errors: ["not_found", ...BODY_ERRORS]
    })
  }
}
