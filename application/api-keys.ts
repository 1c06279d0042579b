import {
  API_KEY_SECRET_LENGTH,
  ApiKey,
  type ApiKeyEnvironment,
  apiKeyFromRandomBytes,
  apiKeyHint,
  ApiKeyId,
  includesAll,
  InvalidInput,
  type OrganizationId,
  parseApiKey,
  reason,
  type Scope
} from "@roster/domain"
import { Effect, Option } from "effect"
import { now } from "./support/clock.js"
import { ApiKeyRepository } from "./ports/api-key-repository.js"
import { Ids } from "./ports/ids.js"
import { Secrets } from "./ports/secrets.js"
import { requireFound, requireOwned } from "./support/ownership.js"
import { PrincipalCache } from "./support/principal-cache.js"
import { authorize, type Principal, Unauthenticated } from "./support/principal.js"
import { Limits } from "./support/limits.js"
import { operations } from "./support/operation.js"

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
    const operation = yield* operations
    const apiKeys = yield* ApiKeyRepository
    const secrets = yield* Secrets
    const ids = yield* Ids
    const principals = yield* PrincipalCache
    const limits = yield* Limits

    /** A fresh key; random bytes are drawn until they give enough base62 characters. */
    const generate = (environment: ApiKeyEnvironment): Effect.Effect<string> =>
      Effect.flatMap(secrets.randomBytes(API_KEY_SECRET_LENGTH + 16), (bytes) =>
        Option.match(apiKeyFromRandomBytes(environment, bytes), {
          onSome: Effect.succeed,
          onNone: () => generate(environment)
        }))

    const create = operation("ApiKeys.create")(function*(input: NewApiKey) {
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
        scopes: [...new Set(input.scopes)],
        createdAt: yield* now,
        lastUsedAt: null,
        revokedAt: null
      })
      yield* apiKeys.insert(apiKey)
      return { apiKey, key } satisfies IssuedApiKey
    })

    /**
     * The principal a presented `X-API-Key` stands for, answered from memory when the key was
     * established within the last second.
     */
    const authenticate = operation("ApiKeys.authenticate")((presented: string): Effect.Effect<Principal, Unauthenticated> => {
      const parsed = parseApiKey(presented.trim())
      if (Option.isNone(parsed)) return Effect.fail(new Unauthenticated({ reason: "the API key is malformed" }))
      return Effect.flatMap(secrets.sha256(parsed.value.key), (hash) =>
        Effect.flatMap(principals.get(hash), (cached) =>
          cached === undefined
            ? Effect.tap(authenticateAnew(hash), (principal) => principals.set(hash, principal))
            : Effect.succeed(cached)))
    })

    const authenticateAnew = Effect.fnUntraced(function*(hash: string) {
      const found = yield* apiKeys.findByHash(hash)
      if (Option.isNone(found)) return yield* new Unauthenticated({ reason: "the API key is not valid" })
      const { apiKey, organization } = found.value
      if (apiKey.revokedAt !== null) return yield* new Unauthenticated({ reason: "the API key has been revoked" })
      if (organization.isSuspended) return yield* new Unauthenticated({ reason: "the organization is suspended" })
      const at = yield* now
      if (apiKey.lastUsedAt === null || at.getTime() - apiKey.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
        yield* apiKeys.markUsed(apiKey.id, at)
      }
      return {
        organization: {
          id: organization.id,
          tier: organization.tier,
          isPlatformAdmin: organization.isPlatformAdmin,
          requestsPerMinute: limits.requestsPerMinute(organization.tier, organization.customRateLimit)
        },
        scopes: apiKey.scopes,
        credential: { kind: "api_key", id: apiKey.id, environment: apiKey.environment }
      } satisfies Principal as Principal
    })

    const owned = (principal: Principal, id: ApiKeyId) =>
      requireOwned("api_key", id, apiKeys.findById(principal.organization.id, id), () => apiKeys.organizationOf(id))

    /** Key management is an owner's area: it needs `*`, and no one hands out more than they hold. */
    const mayGrant = (principal: Principal, scopes: ReadonlyArray<Scope>) =>
      Effect.zipRight(
        authorize(principal, "*"),
        includesAll(principal.scopes, scopes)
          ? Effect.void
          : Effect.fail(new InvalidInput({ field: "scopes", reason: reason("scopesBeyondCaller") }))
      )

    /** A key made through the API by an owner (or a key with `*`) of the organization. */
    const issue = operation("ApiKeys.issue")(function*(
      principal: Principal,
      input: { readonly name: string; readonly scopes: ReadonlyArray<Scope>; readonly environment: ApiKeyEnvironment }
    ) {
      yield* mayGrant(principal, input.scopes)
      return yield* create({ ...input, organizationId: principal.organization.id })
    })

    const list = operation("ApiKeys.list")(function*(principal: Principal) {
      yield* authorize(principal, "*")
      return yield* apiKeys.listByOrganization(principal.organization.id)
    })

    const get = operation("ApiKeys.get")(function*(principal: Principal, id: ApiKeyId) {
      yield* authorize(principal, "*")
      return yield* owned(principal, id)
    })

    const update = operation("ApiKeys.update")(function*(
      principal: Principal,
      id: ApiKeyId,
      changes: { readonly name?: string | undefined; readonly scopes?: ReadonlyArray<Scope> | undefined }
    ) {
      yield* mayGrant(principal, changes.scopes ?? [])
      const current = yield* owned(principal, id)
      const updated = new ApiKey({
        ...current,
        name: changes.name ?? current.name,
        scopes: changes.scopes === undefined ? current.scopes : [...new Set(changes.scopes)]
      })
      yield* apiKeys.update(updated)
      yield* principals.invalidate
      return updated
    })

    /** A new secret for the same key record: the new key is shown once, the old one stops at once. */
    const renew = Effect.fnUntraced(function*(current: ApiKey) {
      if (current.revokedAt !== null) {
        return yield* new InvalidInput({ field: "api_key", reason: reason("apiKeyRevoked") })
      }
      const key = yield* generate(current.environment)
      const hint = apiKeyHint(key)
      const apiKey = new ApiKey({
        ...current,
        keyHash: yield* secrets.sha256(key),
        prefix: hint.prefix,
        lastFour: hint.lastFour,
        lastUsedAt: null
      })
      yield* apiKeys.update(apiKey)
      yield* principals.invalidate
      return { apiKey, key } satisfies IssuedApiKey
    })

    const rotate = operation("ApiKeys.rotate")(function*(principal: Principal, id: ApiKeyId) {
      yield* authorize(principal, "*")
      return yield* renew(yield* owned(principal, id))
    })

    /** A key of the organization, for operators. */
    const ofOrganization = (organizationId: OrganizationId, id: ApiKeyId) =>
      requireFound("api_key", id, apiKeys.findById(organizationId, id))

    /** Every key of an organization, revoked ones included, oldest first; for operators. */
    const listForOrganization = operation("ApiKeys.listForOrganization")((organizationId: OrganizationId) => apiKeys.listByOrganization(organizationId))

    /** A new secret for an organization's key; for operators. */
    const rotateInOrganization = operation("ApiKeys.rotateInOrganization")(function*(organizationId: OrganizationId, id: ApiKeyId) {
      return yield* renew(yield* ofOrganization(organizationId, id))
    })

    /** Stops a key at once and for good, keeping its record in listings; revoking it again changes nothing. */
    const revokeKey = Effect.fnUntraced(function*(current: ApiKey) {
      if (current.revokedAt !== null) return current
      const apiKey = new ApiKey({ ...current, revokedAt: yield* now })
      yield* apiKeys.update(apiKey)
      yield* principals.invalidate
      return apiKey
    })

    /** An owner (or a key with `*`) revokes a key of their organization. */
    const revoke = operation("ApiKeys.revoke")(function*(principal: Principal, id: ApiKeyId) {
      yield* authorize(principal, "*")
      return yield* revokeKey(yield* owned(principal, id))
    })

    /**
     * Stops an organization's key at once and for good, keeping its record (with when it was
     * revoked) in listings; revoking it again changes nothing. For operators.
     */
    const revokeInOrganization = operation("ApiKeys.revokeInOrganization")(function*(organizationId: OrganizationId, id: ApiKeyId) {
      return yield* revokeKey(yield* ofOrganization(organizationId, id))
    })

    const remove = operation("ApiKeys.remove")(function*(principal: Principal, id: ApiKeyId) {
      yield* authorize(principal, "*")
      yield* owned(principal, id)
      yield* apiKeys.delete(principal.organization.id, id)
      yield* principals.invalidate
    })

    return {
      create,
      authenticate,
      issue,
      list,
      get,
      update,
      rotate,
      revoke,
      remove,
      listForOrganization,
      rotateInOrganization,
      revokeInOrganization
    } as const
  }),
  dependencies: [PrincipalCache.Default]
}) {}
