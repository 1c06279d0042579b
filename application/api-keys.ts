import {
  ApiKey,
  type ApiKeyEnvironment,
  apiKeyFromRandomBytes,
  apiKeyHint,
  ApiKeyId,
  API_KEY_SECRET_LENGTH,
  type OrganizationId,
  parseApiKey,
  type Scope
} from "@roster/domain"
import { Effect, Option } from "effect"
import { now } from "./clock.js"
import { ApiKeyRepository } from "./ports/api-key-repository.js"
import { Ids } from "./ports/ids.js"
import { Secrets } from "./ports/secrets.js"
import { type Principal, Unauthenticated } from "./principal.js"

export interface NewApiKey {
  readonly organizationId: OrganizationId
  readonly name: string
  readonly scopes: ReadonlyArray<Scope>
  readonly environment: ApiKeyEnvironment
}

/** A key as created: the record, and the full key, shown this once. */
export interface IssuedApiKey {
  readonly apiKey: ApiKey
  readonly key: string
}

/** `last_used_at` is written at most this often per key, to keep authentication a read. */
const LAST_USED_RESOLUTION_MS = 60_000

export class ApiKeys extends Effect.Service<ApiKeys>()("roster/ApiKeys", {
  effect: Effect.gen(function*() {
    const apiKeys = yield* ApiKeyRepository
    const secrets = yield* Secrets
    const ids = yield* Ids

    /** A fresh key; random bytes are drawn until they give enough base62 characters. */
    const generate = (environment: ApiKeyEnvironment): Effect.Effect<string> =>
      Effect.flatMap(secrets.randomBytes(API_KEY_SECRET_LENGTH + 16), (bytes) =>
        Option.match(apiKeyFromRandomBytes(environment, bytes), {
          onSome: Effect.succeed,
          onNone: () => generate(environment)
        }))

    const create = Effect.fn("ApiKeys.create")(function*(input: NewApiKey) {
      const key = yield* generate(input.environment)
      const hint = apiKeyHint(key)
      const apiKey = new ApiKey({
        id: ApiKeyId.make(yield* ids.next),
        organizationId: input.organizationId,
        name: input.name,
        environment: input.environment,
        keyHash: yield* secrets.sha256(key),
        prefix: hint.prefix,
        lastFour: hint.lastFour,
        scopes: [...input.scopes],
        createdAt: yield* now,
        lastUsedAt: null,
        revokedAt: null
      })
      yield* apiKeys.insert(apiKey)
      return { apiKey, key } satisfies IssuedApiKey
    })

    /** The principal a presented `X-API-Key` stands for. */
    const authenticate = Effect.fn("ApiKeys.authenticate")(function*(presented: string) {
      const parsed = parseApiKey(presented.trim())
      if (Option.isNone(parsed)) return yield* new Unauthenticated({ reason: "the API key is malformed" })
      const found = yield* apiKeys.findByHash(yield* secrets.sha256(parsed.value.key))
      if (Option.isNone(found)) return yield* new Unauthenticated({ reason: "the API key is not valid" })
      const { apiKey, organization } = found.value
      if (apiKey.revokedAt !== null) return yield* new Unauthenticated({ reason: "the API key has been revoked" })
      if (organization.isSuspended) return yield* new Unauthenticated({ reason: "the organization is suspended" })
      const at = yield* now
      if (apiKey.lastUsedAt === null || at.getTime() - apiKey.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
        yield* apiKeys.markUsed(apiKey.id, at)
      }
      return {
        organization: { id: organization.id, tier: organization.tier, isPlatformAdmin: organization.isPlatformAdmin },
        scopes: apiKey.scopes,
        credential: { kind: "api_key", id: apiKey.id, environment: apiKey.environment }
      } satisfies Principal
    })

    return { create, authenticate } as const
  })
}) {}
