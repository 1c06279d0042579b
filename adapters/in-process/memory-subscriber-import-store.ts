import { type ImportedSubscriber, SubscriberImportStore } from "@roster/application"
import { emailKey, Organization, type SubscriberId } from "@roster/domain"
import { Effect, Layer } from "effect"
import { MemoryStore } from "./memory-store.js"
import { adjustCount, tagSubscriptionsOf } from "./memory-tag-assignments.js"

/** An import's batches over the memory store: each write one of its transactions. */
export const MemorySubscriberImportStoreLive = Layer.effect(
  SubscriberImportStore,
  Effect.gen(function*() {
    const store = yield* MemoryStore
    return SubscriberImportStore.of({
      find: (organizationId, emailKeys) =>
        store.read((t) => {
          const wanted = new Set(emailKeys)
          const found = new Map<string, ImportedSubscriber>()
          for (const subscriber of t.subscribers.values()) {
            const key = emailKey(subscriber.email)
            if (subscriber.organizationId !== organizationId || !wanted.has(key)) continue
            found.set(key, {
              subscriber,
              tags: tagSubscriptionsOf(t, subscriber.id),
              erasureRequested: t.erasureRequests.has(subscriber.id)
            })
          }
          return found
        }),

      // Nothing to make ready ahead of a write.
      prepare: (batch) => Effect.succeed({ batch }),

      write: ({ batch }) =>
        store.write((t) => {
          const { at, organizationId } = batch
          const organization = t.organizations.get(organizationId)
          const taken = new Set<string>()
          for (const s of t.subscribers.values()) if (s.organizationId === organizationId) taken.add(emailKey(s.email))
          const count = organization?.subscriberCount ?? 0
          const granted = batch.max === null ? batch.creates.length : Math.max(0, Math.min(batch.creates.length, batch.max - count))
          const created = new Set<SubscriberId>()
          const updated = new Set<SubscriberId>()
          const conflicted = new Set<SubscriberId>()
          for (const subscriber of batch.creates.slice(0, granted)) {
            const key = emailKey(subscriber.email)
            if (taken.has(key)) {
              conflicted.add(subscriber.id)
              continue
            }
            taken.add(key)
            t.subscribers.set(subscriber.id, subscriber)
            created.add(subscriber.id)
          }
          for (const { seen, subscriber } of batch.updates) {
            const current = t.subscribers.get(subscriber.id)
            if (
              current?.organizationId !== organizationId || current.updatedAt.getTime() !== seen.getTime() ||
              t.erasureRequests.has(subscriber.id)
            ) {
              conflicted.add(subscriber.id)
              continue
            }
            t.subscribers.set(subscriber.id, subscriber)
            updated.add(subscriber.id)
          }
          if (organization !== undefined && created.size > 0) {
            t.organizations.set(organizationId, new Organization({ ...organization, subscriberCount: count + created.size }))
          }
          const attached = new Set<string>()
          for (const { subscriberId, tagIds } of batch.attachments) {
            if (!created.has(subscriberId) && !updated.has(subscriberId)) continue
            const current = t.assignments.get(subscriberId) ?? new Map<string, Date>()
            for (const tagId of tagIds) {
              if (current.has(tagId) || t.tags.get(tagId)?.organizationId !== organizationId) continue
              current.set(tagId, at)
              adjustCount(t, tagId, 1)
              attached.add(`${subscriberId}/${tagId}`)
            }
            t.assignments.set(subscriberId, current)
          }
          for (const { event, subscriberId, tagId } of batch.events) {
            const made = tagId === null
              ? created.has(subscriberId) || updated.has(subscriberId)
              : attached.has(`${subscriberId}/${tagId}`)
            if (made) t.events.push(event)
          }
          const overLimit = new Set<SubscriberId>(batch.creates.slice(granted).map((s) => s.id))
          return { created, updated, conflicted, overLimit }
        }),

      // Memory keeps no statistics to bring up to date.
      settle: Effect.void
    })
  })
)
