import { TagAssignments } from "@roster/application"
import { mayCarry, type SubscriberId, Tag, type TagId, tagNameKey, type TagSubscription } from "@roster/domain"
import { Effect, Layer, Option } from "effect"
import { MemoryStore, type Tables } from "./memory-store.js"

export const adjustCount = (t: Tables, tagId: string, by: number) => {
  const tag = t.tags.get(tagId)
  if (tag !== undefined) t.tags.set(tagId, new Tag({ ...tag, subscriberCount: tag.subscriberCount + by }))
}

const ownedSubscriber = (t: Tables, organizationId: string, id: string) =>
  t.subscribers.get(id)?.organizationId === organizationId

/** A subscriber's tags, oldest subscription first (then by tag id), as the database orders them. */
export const tagSubscriptionsOf = (t: Tables, subscriberId: string): Array<TagSubscription> =>
  [...(t.assignments.get(subscriberId) ?? [])]
    .flatMap(([tagId, subscribedAt]) => {
      const tag = t.tags.get(tagId)
      return tag === undefined ? [] : [{ tag, subscribedAt }]
    })
    .sort((a, b) => a.subscribedAt.getTime() - b.subscribedAt.getTime() || (a.tag.id < b.tag.id ? -1 : 1))

export const MemoryTagAssignmentsLive = Layer.effect(
  TagAssignments,
  Effect.gen(function*() {
    const store = yield* MemoryStore
    return TagAssignments.of({
      attach: (organizationId, subscriberId, tagIds, at, max) =>
        store.write((t) => {
          if (!ownedSubscriber(t, organizationId, subscriberId)) return Option.some([])
          const current = t.assignments.get(subscriberId) ?? new Map<string, Date>()
          const fresh = [...new Set(tagIds)].filter((tagId) =>
            !current.has(tagId) && t.tags.get(tagId)?.organizationId === organizationId
          )
          if (!mayCarry(max, current.size, fresh.length)) return Option.none()
          for (const tagId of fresh) {
            current.set(tagId, at)
            adjustCount(t, tagId, 1)
          }
          t.assignments.set(subscriberId, current)
          return Option.some(fresh)
        }),
      detach: (organizationId, subscriberId, tagId) =>
        store.write((t) => {
          if (!ownedSubscriber(t, organizationId, subscriberId)) return false
          const removed = t.assignments.get(subscriberId)?.delete(tagId) ?? false
          if (removed) adjustCount(t, tagId, -1)
          return removed
        }),
      detachAllFromSubscriber: (organizationId, subscriberId) =>
        store.write((t) => {
          if (!ownedSubscriber(t, organizationId, subscriberId)) return []
          const tagIds = [...(t.assignments.get(subscriberId)?.keys() ?? [])] as Array<TagId>
          for (const tagId of tagIds) adjustCount(t, tagId, -1)
          t.assignments.delete(subscriberId)
          return tagIds
        }),
      detachAllFromTag: (organizationId, tagId) =>
        store.write((t) => {
          if (t.tags.get(tagId)?.organizationId !== organizationId) return []
          const carriers: Array<{ id: SubscriberId; email: string }> = []
          for (const [subscriberId, tags] of t.assignments) {
            if (!tags.delete(tagId)) continue
            const subscriber = t.subscribers.get(subscriberId)
            if (subscriber !== undefined) carriers.push({ id: subscriber.id, email: subscriber.email })
          }
          adjustCount(t, tagId, -carriers.length)
          return carriers
        }),
      offeredTo: (organizationId, subscriberId, limit) =>
        store.read((t) => {
          const carried = ownedSubscriber(t, organizationId, subscriberId) ? t.assignments.get(subscriberId) : undefined
          return [...t.tags.values()]
            .filter((tag) => tag.organizationId === organizationId && tag.visibility === "public")
            .map((tag) => ({ key: tagNameKey(tag.name), tag }))
            .sort((a, b) => a.key < b.key ? -1 : a.key > b.key ? 1 : a.tag.id < b.tag.id ? -1 : 1)
            .slice(0, limit)
            .map(({ tag }) => ({ tag, subscribedAt: carried?.get(tag.id) ?? null }))
        }),
      tagsOf: (organizationId, subscriberIds) =>
        store.read((t) => {
          const result = new Map<SubscriberId, ReadonlyArray<TagSubscription>>()
          for (const subscriberId of subscriberIds) {
            if (!ownedSubscriber(t, organizationId, subscriberId)) continue
            const entries = tagSubscriptionsOf(t, subscriberId)
            if (entries.length > 0) result.set(subscriberId, entries)
          }
          return result
        })
    })
  })
)
