import { describe, expect, it } from "@effect/vitest"
import {
  ApiKey,
  ApiKeyId,
  apiKeyFromRandomBytes,
  apiKeyHint,
  Organization,
  OrganizationId,
  parseApiKey,
  type Scope,
  Slug
} from "@roster/domain"
import { Effect, Option, TestClock } from "effect"
import {
  ApiKeyRepository,
  ApiKeys,
  Ids,
  OrganizationRepository,
  PRINCIPAL_CACHE_TTL_MS,
  Secrets
} from "@roster/application"
import { keyFor, openOrganization, UseCasesInMemory } from "./test-kit.js"

const inMemory = <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.provide(self, UseCasesInMemory)

const refusal = (presented: string) => Effect.flatMap(ApiKeys, (apiKeys) => Effect.flip(apiKeys.authenticate(presented)))

/** A key stored straight through the repository port, as an operator's tool or an older release may have left it. */
const storedKey = (organizationId: OrganizationId, fields: { readonly revokedAt?: Date; readonly scopes?: ReadonlyArray<Scope> }) =>
  Effect.gen(function*() {
    const secrets = yield* Secrets
    const key = Option.getOrThrow(apiKeyFromRandomBytes("live", yield* secrets.randomBytes(128)))
    const hint = apiKeyHint(key)
    yield* (yield* ApiKeyRepository).insert(
      new ApiKey({
        id: ApiKeyId.make(yield* (yield* Ids).next),
        organizationId,
        name: "stored key",
        environment: "live",
        keyHash: yield* secrets.sha256(key),
        prefix: hint.prefix,
        lastFour: hint.lastFour,
        scopes: [...(fields.scopes ?? ["*"])],
        createdAt: new Date(0),
        lastUsedAt: null,
        revokedAt: fields.revokedAt ?? null
      })
    )
    return key
  })

describe("issuing API keys", () => {
  it.effect("the full key is handed out once; only its hash and a hint are kept", () =>
    inMemory(Effect.gen(function*() {
      const { organization } = yield* openOrganization()
      const apiKeys = yield* ApiKeys
      const { apiKey, key } = yield* apiKeys.create({
        organizationId: organization.id,
        name: "Import job",
        scopes: ["subscribers:write"],
        environment: "live"
      })
      expect(parseApiKey(key)).toEqual(Option.some({ environment: "live", key }))
      expect(apiKey.keyHash).toBe(yield* (yield* Secrets).sha256(key))
      expect(apiKey.keyHash).not.toContain(key.slice(9))
      expect(apiKey).toMatchObject({ prefix: key.slice(0, 13), lastFour: key.slice(-4), scopes: ["subscribers:write"] })
      const listed = yield* (yield* ApiKeyRepository).listByOrganization(organization.id)
      expect(listed.map((k) => k.id)).toContain(apiKey.id)
      expect(JSON.stringify(listed)).not.toContain(key)
    })))

  it.effect("test keys start with svc_test_, live keys with svc_live_, and no two keys are alike", () =>
    inMemory(Effect.gen(function*() {
      const { organization } = yield* openOrganization()
      const apiKeys = yield* ApiKeys
      const make = (environment: "live" | "test") =>
        Effect.map(apiKeys.create({ organizationId: organization.id, name: environment, scopes: ["*"], environment }), ({ key }) => key)
      const test = yield* make("test")
      const live = yield* make("live")
      expect(test.startsWith("svc_test_")).toBe(true)
      expect(live.startsWith("svc_live_")).toBe(true)
      const more = yield* Effect.all(Array.from({ length: 20 }, () => make("live")))
      expect(new Set([test, live, ...more]).size).toBe(22)
    })))
})

describe("authenticating with an API key", () => {
  it.effect("a good key stands for its organization, with the organization's tier and the key's scopes", () =>
    inMemory(Effect.gen(function*() {
      const { organization } = yield* openOrganization({ tier: "pro", scopes: ["*"] })
      const apiKeys = yield* ApiKeys
      const { apiKey, key } = yield* apiKeys.create({
        organizationId: organization.id,
        name: "Reader",
        scopes: ["subscribers:read", "tags:read"],
        environment: "test"
      })
      const principal = yield* apiKeys.authenticate(key)
      expect(principal).toEqual({
        organization: { id: organization.id, tier: "pro", isPlatformAdmin: false, requestsPerMinute: 1000 },
        scopes: ["subscribers:read", "tags:read"],
        credential: { kind: "api_key", id: apiKey.id, environment: "test" }
      })
    })))

  it.effect.each([
    ["an empty header", ""],
    ["a word", "hello"],
    ["a bearer token", "Bearer svc_live_0123456789ABCDEFGHIJKLMNOPQRSTUV"],
    ["a key that is too short", "svc_live_0123456789"],
    ["another service's key", "sk_live_0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"]
  ])("refuses %s as malformed", ([, presented]) =>
    inMemory(Effect.gen(function*() {
      expect(yield* refusal(presented)).toMatchObject({ _tag: "Unauthenticated", reason: "the API key is malformed" })
    })))

  it.effect("refuses a well-formed key that was never issued", () =>
    inMemory(Effect.gen(function*() {
      yield* openOrganization()
      const unknown = Option.getOrThrow(apiKeyFromRandomBytes("live", yield* (yield* Secrets).randomBytes(128)))
      expect(yield* refusal(unknown)).toMatchObject({ _tag: "Unauthenticated", reason: "the API key is not valid" })
    })))

  it.effect("refuses a key that differs from an issued one in its last character", () =>
    inMemory(Effect.gen(function*() {
      const { organization } = yield* openOrganization()
      const { key } = yield* (yield* ApiKeys).create({ organizationId: organization.id, name: "k", scopes: ["*"], environment: "live" })
      const altered = key.slice(0, -1) + (key.endsWith("a") ? "b" : "a")
      expect(yield* refusal(altered)).toMatchObject({ _tag: "Unauthenticated", reason: "the API key is not valid" })
    })))

  it.effect("refuses a revoked key", () =>
    inMemory(Effect.gen(function*() {
      const { organization } = yield* openOrganization()
      const revoked = yield* storedKey(organization.id, { revokedAt: new Date("2025-01-01T00:00:00.000Z") })
      const active = yield* storedKey(organization.id, {})
      expect(yield* refusal(revoked)).toMatchObject({ _tag: "Unauthenticated", reason: "the API key has been revoked" })
      expect((yield* (yield* ApiKeys).authenticate(active)).organization.id).toBe(organization.id)
    })))

  it.effect("refuses every key of a suspended organization", () =>
    inMemory(Effect.gen(function*() {
      const ids = yield* Ids
      const suspended = new Organization({
        id: OrganizationId.make(yield* ids.next),
        name: "Suspended Ltd",
        slug: Slug.make(`suspended-${yield* ids.next}`),
        tier: "pro",
        isPlatformAdmin: false,
        suspendedAt: new Date("2025-02-01T00:00:00.000Z"),
        customRateLimit: null,
        subscriberCount: 0,
        createdAt: new Date("2025-01-01T00:00:00.000Z"),
        updatedAt: new Date("2025-02-01T00:00:00.000Z")
      })
      yield* (yield* OrganizationRepository).insert(suspended)
      const apiKeys = yield* ApiKeys
      const { key } = yield* apiKeys.create({ organizationId: suspended.id, name: "k", scopes: ["*"], environment: "live" })
      expect(yield* refusal(key)).toMatchObject({ _tag: "Unauthenticated", reason: "the organization is suspended" })
    })))

  it.effect("answers a key from memory for a second: a change made elsewhere takes effect within it, one made here at once", () =>
    inMemory(Effect.gen(function*() {
      const { organization } = yield* openOrganization()
      const apiKeys = yield* ApiKeys
      const repository = yield* ApiKeyRepository
      const first = yield* apiKeys.create({ organizationId: organization.id, name: "a", scopes: ["*"], environment: "live" })
      expect((yield* apiKeys.authenticate(first.key)).scopes).toEqual(["*"])

      // Revoked behind this process's back, as another process would: answered from memory until the second is over.
      yield* repository.update(new ApiKey({ ...first.apiKey, revokedAt: new Date(0) }))
      expect((yield* apiKeys.authenticate(first.key)).organization.id).toBe(organization.id)
      yield* TestClock.adjust(PRINCIPAL_CACHE_TTL_MS)
      expect(yield* refusal(first.key)).toMatchObject({ reason: "the API key has been revoked" })

      // Rescoped, rotated and deleted through this process: taken into account on the next request.
      const { principal } = yield* openOrganization()
      const second = yield* apiKeys.create({ organizationId: principal.organization.id, name: "b", scopes: ["*"], environment: "live" })
      expect((yield* apiKeys.authenticate(second.key)).scopes).toEqual(["*"])
      yield* apiKeys.update(principal, second.apiKey.id, { scopes: ["tags:read"] })
      expect((yield* apiKeys.authenticate(second.key)).scopes).toEqual(["tags:read"])
      const rotated = yield* apiKeys.rotate(principal, second.apiKey.id)
      expect(yield* refusal(second.key)).toMatchObject({ reason: "the API key is not valid" })
      expect((yield* apiKeys.authenticate(rotated.key)).scopes).toEqual(["tags:read"])
      yield* apiKeys.remove(principal, second.apiKey.id)
      expect(yield* refusal(rotated.key)).toMatchObject({ reason: "the API key is not valid" })
    })))

  it.effect("notes when a key was last used, at most once a minute", () =>
    inMemory(Effect.gen(function*() {
      yield* TestClock.setTime(Date.parse("2025-06-01T09:00:00.000Z"))
      const { organization } = yield* openOrganization()
      const apiKeys = yield* ApiKeys
      const repository = yield* ApiKeyRepository
      const { apiKey, key } = yield* apiKeys.create({ organizationId: organization.id, name: "k", scopes: ["*"], environment: "live" })
      const lastUsed = Effect.map(repository.findById(organization.id, apiKey.id), (found) => Option.getOrThrow(found).lastUsedAt)
      expect(yield* lastUsed).toBeNull()

      yield* apiKeys.authenticate(key)
      expect(yield* lastUsed).toEqual(new Date("2025-06-01T09:00:00.000Z"))
      yield* TestClock.adjust("30 seconds")
      yield* apiKeys.authenticate(key)
      expect(yield* lastUsed).toEqual(new Date("2025-06-01T09:00:00.000Z"))
      yield* TestClock.adjust("31 seconds")
      yield* apiKeys.authenticate(key)
      expect(yield* lastUsed).toEqual(new Date("2025-06-01T09:01:01.000Z"))
    })))
})

describe("API keys, as operators manage them", () => {
  it.effect("a revoked key is refused at once, stays listed with when it was revoked, and cannot be rotated", () =>
    inMemory(Effect.gen(function*() {
      const { organization } = yield* openOrganization()
      const apiKeys = yield* ApiKeys
      const { apiKey, key } = yield* apiKeys.create({ organizationId: organization.id, name: "CRM", scopes: ["*"], environment: "live" })
      yield* apiKeys.authenticate(key)
      const revoked = yield* apiKeys.revokeInOrganization(organization.id, apiKey.id)
      expect(revoked.revokedAt).toBeInstanceOf(Date)
      expect((yield* refusal(key)).reason).toBe("the API key has been revoked")
      expect(yield* apiKeys.revokeInOrganization(organization.id, apiKey.id)).toStrictEqual(revoked)
      const listed = yield* apiKeys.listForOrganization(organization.id)
      expect(listed.map((k) => [k.id, k.revokedAt])).toContainEqual([apiKey.id, revoked.revokedAt])
      const refused = yield* Effect.flip(apiKeys.rotateInOrganization(organization.id, apiKey.id))
      expect(refused).toMatchObject({ _tag: "InvalidInput", field: "api_key" })
    })))

  it.effect("rotating gives a new key and stops the old one; a key of another organization is not found", () =>
    inMemory(Effect.gen(function*() {
      const { organization } = yield* openOrganization()
      const other = yield* openOrganization()
      const apiKeys = yield* ApiKeys
      const { apiKey, key } = yield* apiKeys.create({ organizationId: organization.id, name: "CRM", scopes: ["tags:read"], environment: "test" })
      const rotated = yield* apiKeys.rotateInOrganization(organization.id, apiKey.id)
      expect(rotated.key).not.toBe(key)
      expect(rotated.key.startsWith("svc_test_")).toBe(true)
      expect(rotated.apiKey).toMatchObject({ id: apiKey.id, scopes: ["tags:read"], lastFour: rotated.key.slice(-4) })
      expect((yield* refusal(key)).reason).toBe("the API key is not valid")
      expect((yield* apiKeys.authenticate(rotated.key)).scopes).toStrictEqual(["tags:read"])
      const notFound = { _tag: "ResourceNotFound", resource: "api_key" }
      expect(yield* Effect.flip(apiKeys.rotateInOrganization(other.organization.id, apiKey.id))).toMatchObject(notFound)
      expect(yield* Effect.flip(apiKeys.revokeInOrganization(other.organization.id, apiKey.id))).toMatchObject(notFound)
    })))
})

describe("API keys, as owners revoke them", () => {
  it.effect("an owner's revoke stops the key at once and keeps it listed; without * or for another organization it is refused", () =>
    inMemory(Effect.gen(function*() {
      const { organization, principal } = yield* openOrganization()
      const other = yield* openOrganization()
      const apiKeys = yield* ApiKeys
      const { apiKey, key } = yield* apiKeys.issue(principal, { name: "CRM", scopes: ["tags:read"], environment: "test" })
      const readOnly = yield* keyFor(organization.id, ["tags:read"])
      expect(yield* Effect.flip(apiKeys.revoke(readOnly, apiKey.id))).toMatchObject({ _tag: "MissingScope", scope: "*" })
      expect(yield* Effect.flip(apiKeys.revoke(other.principal, apiKey.id))).toMatchObject({ _tag: "ResourceOfAnotherOrganization" })
      yield* apiKeys.authenticate(key)
      const revoked = yield* apiKeys.revoke(principal, apiKey.id)
      expect(revoked.revokedAt).toBeInstanceOf(Date)
      expect((yield* refusal(key)).reason).toBe("the API key has been revoked")
      expect(yield* apiKeys.revoke(principal, apiKey.id)).toStrictEqual(revoked)
      expect((yield* apiKeys.list(principal)).map((k) => [k.id, k.revokedAt])).toContainEqual([apiKey.id, revoked.revokedAt])
    })))
})
