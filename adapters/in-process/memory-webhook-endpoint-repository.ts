import { WebhookEndpointRepository } from "@roster/application"
import { WebhookEndpoint, withinLimit } from "@roster/domain"
import { Effect, Layer, Option } from "effect"
import { MemoryStore, type Tables } from "./memory-store.js"
import { compareBy } from "./ordering.js"

const oldestFirst = compareBy((endpoint: WebhookEndpoint) => endpoint.createdAt.getTime(), "asc")

/** Removes an endpoint with its deliveries and their attempts, as the database's cascades do. */
export const deleteWebhookEndpoint = (t: Tables, id: string): boolean => {
  if (!t.webhookEndpoints.delete(id)) return false
  for (const [deliveryId, stored] of t.webhookDeliveries) {
    if (stored.delivery.endpointId !== id) continue
    t.webhookDeliveries.delete(deliveryId)
    t.webhookAttempts.delete(deliveryId)
  }
  return true
}

const countOf = (t: Tables, organizationId: string): number => {
  let count = 0
  for (const endpoint of t.webhookEndpoints.values()) if (endpoint.organizationId === organizationId) count++
  return count
}

export const MemoryWebhookEndpointRepositoryLive = Layer.effect(
  WebhookEndpointRepository,
  Effect.gen(function*() {
    const store = yield* MemoryStore

    /** Replaces the endpoint `id` with `change(endpoint)`, if there is one; the new endpoint. */
    const change = (t: Tables, id: string, f: (endpoint: WebhookEndpoint) => WebhookEndpoint) => {
      const current = t.webhookEndpoints.get(id)
      if (current === undefined) return Option.none()
      const changed = f(current)
      t.webhookEndpoints.set(id, changed)
      return Option.some(changed)
    }

    return WebhookEndpointRepository.of({
      insert: (endpoint, max) =>
        store.write((t) => {
          if (!withinLimit(max, countOf(t, endpoint.organizationId), 1)) return false
          t.webhookEndpoints.set(endpoint.id, endpoint)
          return true
        }),
      update: (endpoint) =>
        store.write((t) => {
          if (t.webhookEndpoints.get(endpoint.id)?.organizationId === endpoint.organizationId) {
            t.webhookEndpoints.set(endpoint.id, endpoint)
          }
        }),
      findById: (organizationId, id) =>
        store.read((t) =>
          Option.fromNullable(t.webhookEndpoints.get(id)).pipe(Option.filter((e) => e.organizationId === organizationId))
        ),
      listByOrganization: (organizationId) =>
        store.read((t) => [...t.webhookEndpoints.values()].filter((e) => e.organizationId === organizationId).sort(oldestFirst)),
      countByOrganization: (organizationId) => store.read((t) => countOf(t, organizationId)),
      delete: (organizationId, id) =>
        store.write((t) => t.webhookEndpoints.get(id)?.organizationId === organizationId && deleteWebhookEndpoint(t, id)),
      organizationOf: (id) => store.read((t) => Option.fromNullable(t.webhookEndpoints.get(id)?.organizationId)),
      activeOf: (organizationIds) =>
        store.read((t) => {
          const wanted = new Set<string>(organizationIds)
          return [...t.webhookEndpoints.values()]
            .filter((e) => e.status === "active" && wanted.has(e.organizationId))
            .sort((a, b) => (a.organizationId < b.organizationId ? -1 : a.organizationId > b.organizationId ? 1 : oldestFirst(a, b)))
        }),
      markAnswered: (id) =>
        store.write((t) => {
          if (t.webhookEndpoints.get(id)?.failingSince !== null) {
            change(t, id, (e) => new WebhookEndpoint({ ...e, failingSince: null }))
          }
        }),
      markFailed: (id, at) =>
        store.write((t) =>
          Option.flatMap(
            change(t, id, (e) => e.failingSince === null ? new WebhookEndpoint({ ...e, failingSince: at }) : e),
            (e) => Option.fromNullable(e.failingSince)
          )
        ),
      disable: (id, reason, at) =>
        store.write((t) => {
          if (t.webhookEndpoints.get(id)?.status !== "active") return
          change(t, id, (e) => new WebhookEndpoint({ ...e, status: "disabled", disabledReason: reason, updatedAt: at }))
        })
    })
  })
)
