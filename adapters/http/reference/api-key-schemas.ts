import { Schema } from "effect"
import { ApiKey, IssuedApiKey, ScopeDescription } from "../shared/api-key-schemas.js"
import { Count, withStatus } from "../shared/wire-fields.js"

/** API keys in the reference form: bare JSON, lists as `items`. */

export { ApiKey } from "../shared/api-key-schemas.js"

export const CreatedApiKey = withStatus(IssuedApiKey, 201, "IssuedApiKey")
export const RotatedApiKey = IssuedApiKey.annotations({ identifier: "IssuedApiKey" })

export const ApiKeyList = Schema.Struct({
  items: Schema.Array(ApiKey).annotations({ description: "every key of the organization, oldest first" }),
  total: Count("how many keys the organization has")
}).annotations({ identifier: "ApiKeyList" })

export const ScopeList = Schema.Struct({
  items: Schema.Array(ScopeDescription)
}).annotations({ identifier: "ScopeList" })
