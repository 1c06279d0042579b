import { ApiKeyRepository } from "@roster/application"
import { ApiKey } from "@roster/domain"
import { Effect, Layer, Option } from "effect"
import { MemoryStore } from "./memory-store.js"

export const MemoryApiKeyRepositoryLive = Layer.effect(
  ApiKeyRepository,
  Effect.gen(function*() {
    const store = yield* MemoryStore
    return ApiKeyRepository.of({
      insert: (apiKey) => store.write((t) => void t.apiKeys.set(apiKey.id, apiKey)),
      findById: (organizationId, id) =>
        store.read((t) => Option.fromNullable(t.apiKeys.get(id)).pipe(Option.filter((k) => k.organizationId === organizationId))),
      findByHash: (keyHash) =>
        store.read((t) => {
          const apiKey = [...t.apiKeys.values()].find((k) => k.keyHash === keyHash)
          const organization = apiKey === undefined ? undefined : t.organizations.get(apiKey.organizationId)
          return apiKey === undefined || organization === undefined ? Option.none() : Option.some({ apiKey, organization })
        }),
      listByOrganization: (organizationId) =>
        store.read((t) =>
          [...t.apiKeys.values()]
            .filter((k) => k.organizationId === organizationId)
            .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1))
        ),
      markUsed: (id, at) =>
        store.write((t) => {
          const apiKey = t.apiKeys.get(id)
          if (apiKey !== undefined) t.apiKeys.set(id, new ApiKey({ ...apiKey, lastUsedAt: at }))
        }),
      // The organization, environment and creation of a key never change.
      update: (apiKey) =>
        store.write((t) => {
          const current = t.apiKeys.get(apiKey.id)
          if (current === undefined || current.organizationId !== apiKey.organizationId) return
          t.apiKeys.set(
            apiKey.id,
            new ApiKey({
              ...current,
              name: apiKey.name,
              scopes: apiKey.scopes,
              keyHash: apiKey.keyHash,
              prefix: apiKey.prefix,
              lastFour: apiKey.lastFour,
              lastUsedAt: apiKey.lastUsedAt,
              revokedAt: apiKey.revokedAt
            })
          )
        }),
      delete: (organizationId, id) =>
        store.write((t) => t.apiKeys.get(id)?.organizationId === organizationId && t.apiKeys.delete(id)),
      organizationOf: (id) => store.read((t) => Option.fromNullable(t.apiKeys.get(id)?.organizationId))
    })
  })
)
