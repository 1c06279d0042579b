import { assert, expect, layer } from "@effect/vitest"
import { ApiKeyRepository } from "@roster/application"
import { ApiKey, ApiKeyId } from "@roster/domain"
import { Effect, Option } from "effect"
import { randomBytes, randomUUID } from "node:crypto"
import { anApiKey, givenApiKey, givenOrganization, instant, type PersistenceLayer } from "./fixtures.js"

export const apiKeyRepositoryContract = (persistence: PersistenceLayer) =>
  layer(persistence)("ApiKeyRepository", (it) => {
    it.effect("stores a key and finds it by id within its organization", () =>
      Effect.gen(function*() {
        const apiKeys = yield* ApiKeyRepository
        const organization = yield* givenOrganization()
        const apiKey = anApiKey(organization.id, { scopes: ["subscribers:read", "tags:write"], createdAt: instant(7) })
        yield* apiKeys.insert(apiKey)
        expect(Option.getOrThrow(yield* apiKeys.findById(organization.id, apiKey.id))).toStrictEqual(apiKey)
        assert.isTrue(Option.isNone(yield* apiKeys.findById((yield* givenOrganization()).id, apiKey.id)))
        assert.isTrue(Option.isNone(yield* apiKeys.findById(organization.id, ApiKeyId.make(randomUUID()))))
      }))

    it.effect("finds a key by its hash together with its organization, revoked or not", () =>
      Effect.gen(function*() {
        const apiKeys = yield* ApiKeyRepository
        const organization = yield* givenOrganization({ tier: "enterprise" })
        const live = yield* givenApiKey(organization.id, { scopes: ["*"] })
        const revoked = yield* givenApiKey(organization.id, { revokedAt: instant(99) })

        expect(Option.getOrThrow(yield* apiKeys.findByHash(live.keyHash))).toStrictEqual({ apiKey: live, organization })
        expect(Option.getOrThrow(yield* apiKeys.findByHash(revoked.keyHash)).apiKey.revokedAt).toStrictEqual(instant(99))
        assert.isTrue(Option.isNone(yield* apiKeys.findByHash("0".repeat(64))))
      }))

    it.effect("lists an organization's keys oldest first", () =>
      Effect.gen(function*() {
        const apiKeys = yield* ApiKeyRepository
        const organization = yield* givenOrganization()
        const late = yield* givenApiKey(organization.id, { createdAt: instant(9) })
        const early = yield* givenApiKey(organization.id, { createdAt: instant(1) })
        const tied = [
          yield* givenApiKey(organization.id, { createdAt: instant(5) }),
          yield* givenApiKey(organization.id, { createdAt: instant(5) })
        ].sort((a, b) => (a.id < b.id ? -1 : 1))
        yield* givenApiKey((yield* givenOrganization()).id)
        const listed = yield* apiKeys.listByOrganization(organization.id)
        expect(listed.map((k) => k.id)).toStrictEqual([early.id, ...tied.map((k) => k.id), late.id])
      }))

    it.effect("records when a key was last used", () =>
      Effect.gen(function*() {
        const apiKeys = yield* ApiKeyRepository
        const organization = yield* givenOrganization()
        const apiKey = yield* givenApiKey(organization.id)
        yield* apiKeys.markUsed(apiKey.id, instant(120))
        expect(Option.getOrThrow(yield* apiKeys.findById(organization.id, apiKey.id)).lastUsedAt).toStrictEqual(instant(120))
      }))

    it.effect("updates a key's name, scopes, secret, hint, use and revocation", () =>
      Effect.gen(function*() {
        const apiKeys = yield* ApiKeyRepository
        const organization = yield* givenOrganization()
        const apiKey = yield* givenApiKey(organization.id, { createdAt: instant(3) })
        yield* apiKeys.markUsed(apiKey.id, instant(30))
        const updated = new ApiKey({
          ...apiKey,
          name: "Nightly export",
          scopes: ["subscribers:read", "tags:read"],
          keyHash: randomBytes(32).toString("hex"),
          prefix: "svc_test_EfGh",
          lastFour: "9876",
          lastUsedAt: null,
          revokedAt: instant(40)
        })
        yield* apiKeys.update(updated)
        expect(Option.getOrThrow(yield* apiKeys.findById(organization.id, apiKey.id))).toStrictEqual(updated)
        assert.isTrue(Option.isNone(yield* apiKeys.findByHash(apiKey.keyHash)))
        expect(Option.getOrThrow(yield* apiKeys.findByHash(updated.keyHash)).apiKey).toStrictEqual(updated)
      }))

    it.effect("an update naming another organization changes nothing", () =>
      Effect.gen(function*() {
        const apiKeys = yield* ApiKeyRepository
        const organization = yield* givenOrganization()
        const apiKey = yield* givenApiKey(organization.id)
        const other = yield* givenOrganization()
        yield* apiKeys.update(new ApiKey({ ...apiKey, organizationId: other.id, name: "Taken over", scopes: ["*"] }))
        expect(Option.getOrThrow(yield* apiKeys.findById(organization.id, apiKey.id))).toStrictEqual(apiKey)
        expect(yield* apiKeys.listByOrganization(other.id)).toStrictEqual([])
      }))

    it.effect("deletes a key of its own organization once", () =>
      Effect.gen(function*() {
        const apiKeys = yield* ApiKeyRepository
        const organization = yield* givenOrganization()
        const apiKey = yield* givenApiKey(organization.id)
        const kept = yield* givenApiKey(organization.id)
        assert.isFalse(yield* apiKeys.delete((yield* givenOrganization()).id, apiKey.id))
        expect(Option.getOrThrow(yield* apiKeys.findById(organization.id, apiKey.id))).toStrictEqual(apiKey)

        assert.isTrue(yield* apiKeys.delete(organization.id, apiKey.id))
        assert.isFalse(yield* apiKeys.delete(organization.id, apiKey.id))
        assert.isTrue(Option.isNone(yield* apiKeys.findById(organization.id, apiKey.id)))
        assert.isTrue(Option.isNone(yield* apiKeys.findByHash(apiKey.keyHash)))
        assert.isTrue(Option.isNone(yield* apiKeys.organizationOf(apiKey.id)))
        expect(yield* apiKeys.listByOrganization(organization.id)).toStrictEqual([kept])
      }))

    it.effect("tells which organization a key belongs to, whichever it is", () =>
      Effect.gen(function*() {
        const apiKeys = yield* ApiKeyRepository
        const [first, second] = [yield* givenOrganization(), yield* givenOrganization()]
        const [ofFirst, ofSecond] = [yield* givenApiKey(first.id), yield* givenApiKey(second.id)]
        expect(yield* apiKeys.organizationOf(ofFirst.id)).toStrictEqual(Option.some(first.id))
        expect(yield* apiKeys.organizationOf(ofSecond.id)).toStrictEqual(Option.some(second.id))
        assert.isTrue(Option.isNone(yield* apiKeys.organizationOf(ApiKeyId.make(randomUUID()))))
      }))
  })
