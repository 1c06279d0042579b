import { Layer } from "effect"
import { NodeIdsLive } from "./node-ids.js"
import { NodeSecretsLive } from "./node-secrets.js"

export { makeBufferedOutput } from "./buffered-output.js"
export { makeUuidV7, NodeIdsLive } from "./node-ids.js"
export { NodeSecretsLive } from "./node-secrets.js"

export const CryptoLive = Layer.merge(NodeIdsLive, NodeSecretsLive)
