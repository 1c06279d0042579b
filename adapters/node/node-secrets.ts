import { Secrets } from "@roster/application"
import { Effect, Layer } from "effect"
import { createHash, randomBytes } from "node:crypto"

export const NodeSecretsLive = Layer.succeed(Secrets, {
  randomBytes: (count) => Effect.sync(() => new Uint8Array(randomBytes(count))),
  sha256: (text) => Effect.sync(() => createHash("sha256").update(text, "utf8").digest("hex"))
})
