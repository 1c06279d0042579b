import {
  exportByKeyset,
  type SubscriberPageSort,
  SubscriberRepository,
  type SubscriberSearch,
  type SubscriberSort
} from "@roster/application"
import { EmailAlreadyExists, emailKey, type Subscriber, SubscriberId, type SubscriberStatus } from "@roster/domain"
import { Effect, Layer, Option } from "effect"
import { deleteSubscriberRecords, MemoryStore, type Tables } from "./memory-store.js"
import { deleteSubscriberMail } from "./memory-outgoing-mail.js"
import { adjustCount, tagSubscriptionsOf } from "./memory-tag-assignments.js"
import { pickDue } from "./memory-work-queue.js"
import { compareBy, compareByKeys, compareText, instant, isAfter, type SortKey } from "./ordering.js"

/** The calendar day (`YYYY-MM-DD`) an instant falls on in `timeZone`. */
const calendarDay = (timeZone: string) => {
  const format = new Intl.DateTimeFormat("en-US", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" })
  return (at: Date): string => {
    const parts = Object.fromEntries(format.formatToParts(at).map((part) => [part.type, part.value]))
    return `${parts.year}-${parts.month}-${parts.day}`
  }
}

const sortValue = (sort: SubscriberSort) => (s: Subscriber): SortKey =>
  sort === "email" ? emailKey(s.email) : (sort === "created_at" ? s.createdAt : s.updatedAt).getTime()

const pageSortValue = (sort: SubscriberPageSort) => (s: Subscriber): SortKey =>
  sort === "status" ? s.status : sortValue(sort)(s)

const matches = (tables: Tables, organizationId: string, filter: SubscriberSearch) => {
  const prefix = filter.emailPrefix === undefined ? undefined : emailKey(filter.emailPrefix)
  return (s: Subscriber): boolean =>
    s.organizationId === organizationId &&
    (prefix === undefined || emailKey(s.email).startsWith(prefix)) &&
    (filter.status === undefined || s.status === filter.status) &&
    (filter.tagId === undefined || (tables.assignments.get(s.id)?.has(filter.tagId) ?? false))
}

const sameEmail = (tables: Tables, subscriber: Subscriber): boolean => {
  const key = emailKey(subscriber.email)
  for (const other of tables.subscribers.values()) {
    if (other.organizationId === subscriber.organizationId && other.id !== subscriber.id && emailKey(other.email) === key) {
      return true
    }
  }
  return false
}

export const MemorySubscriberRepositoryLive = Layer.effect(
  SubscriberRepository,
  Effect.gen(function*() {
    const store = yield* MemoryStore
    const findById = (organizationId: string, id: string) =>
      store.read((t) => Option.fromNullable(t.subscribers.get(id)).pipe(Option.filter((s) => s.organizationId === organizationId)))

    const repository: SubscriberRepository["Type"] = SubscriberRepository.of({
      insert: (subscriber) =>
        Effect.flatten(store.write((t) => {
          if (sameEmail(t, subscriber)) return Effect.fail(new EmailAlreadyExists({ email: subscriber.email }))
          t.subscribers.set(subscriber.id, subscriber)
          return Effect.void
        })),
      update: (subscriber) =>
        store.write((t) => {
          const current = t.subscribers.get(subscriber.id)
          if (current !== undefined && current.organizationId === subscriber.organizationId) {
            t.subscribers.set(subscriber.id, subscriber)
          }
        }),
      preferenceAccesses: (organizationId, ids) =>
        store.read((t) =>
          new Map(ids.flatMap((id) =>
            t.subscribers.get(id)?.organizationId === organizationId
              ? [[id, { tokenVersion: t.preferenceTokenVersions.get(id) ?? 0, erasureRequestedAt: t.erasureRequests.get(id) ?? null }]]
              : []
          ))
        ),
      preferenceAccess: (organizationId, id) =>
        store.read((t) =>
          t.subscribers.get(id)?.organizationId === organizationId
            ? Option.some({
              tokenVersion: t.preferenceTokenVersions.get(id) ?? 0,
              erasureRequestedAt: t.erasureRequests.get(id) ?? null
            })
            : Option.none()
        ),

      requestErasure: (organizationId, id, at) =>
        store.write((t) => {
          if (t.subscribers.get(id)?.organizationId !== organizationId) return false
          if (!t.erasureRequests.has(id)) t.erasureRequests.set(id, at)
          return true
        }),

      claimErasures: (limit) =>
        store.read((t) =>
          pickDue(t.erasureRequests, {
            claimable: () => true,
            order: ([a, at], [b, bt]) => at.getTime() - bt.getTime() || (a < b ? -1 : 1),
            limit
          }).map(([id]) => ({ organizationId: t.subscribers.get(id)!.organizationId, id: SubscriberId.make(id) }))
        ),

      revokePreferenceTokens: (organizationId, id) =>
        store.write((t) => {
          if (t.subscribers.get(id)?.organizationId !== organizationId) return Option.none()
          const next = (t.preferenceTokenVersions.get(id) ?? 0) + 1
          t.preferenceTokenVersions.set(id, next)
          return Option.some(next)
        }),

      delete: (organizationId, id) =>
        store.write((t) => {
          const current = t.subscribers.get(id)
          if (current === undefined || current.organizationId !== organizationId) return false
          t.subscribers.delete(id)
          t.preferenceTokenVersions.delete(id)
          t.erasureRequests.delete(id)
          for (const tagId of t.assignments.get(id)?.keys() ?? []) adjustCount(t, tagId, -1)
          t.assignments.delete(id)
          deleteSubscriberRecords(t, id)
          deleteSubscriberMail(t, id)
          return true
        }),
      findById,
      findWithTags: (organizationId, id) =>
        store.read((t) => {
          const subscriber = t.subscribers.get(id)
          return subscriber === undefined || subscriber.organizationId !== organizationId
            ? Option.none()
            : Option.some({ subscriber, tags: tagSubscriptionsOf(t, id) })
        }),
      findByIdForUpdate: findById,
      findManyForUpdate: (organizationId, ids) =>
        store.read((t) =>
          [...new Set(ids)].sort().flatMap((id) => {
            const subscriber = t.subscribers.get(id)
            return subscriber === undefined || subscriber.organizationId !== organizationId ? [] : [subscriber]
          })
        ),
      findByEmail: (organizationId, email) =>
        store.read((t) => {
          const key = emailKey(email)
          for (const s of t.subscribers.values()) {
            if (s.organizationId === organizationId && emailKey(s.email) === key) return Option.some(s)
          }
          return Option.none()
        }),
      holdersOf: (email) =>
        store.read((t) => {
          const key = emailKey(email)
          return [...t.subscribers.values()]
            .filter((s) => emailKey(s.email) === key)
            .map((s) => ({ organizationId: s.organizationId, id: s.id }))
            .sort((a, b) => compareText(a.organizationId, b.organizationId) || compareText(a.id, b.id))
        }),
      organizationOf: (id) => store.read((t) => Option.fromNullable(t.subscribers.get(id)?.organizationId)),
      list: (organizationId, query) =>
        store.read((t) => {
          const value = sortValue(query.sort)
          const after = query.after === undefined ? undefined : {
            value: query.sort === "email" ? query.after.value : instant(query.after.value),
            id: query.after.id
          }
          return [...t.subscribers.values()]
            .filter(matches(t, organizationId, query))
            .filter((s) => after === undefined || isAfter(s, value, after, query.order))
            .sort(compareBy(value, query.order))
            .slice(0, query.limit)
        }),
      listPage: (organizationId, query) =>
        store.read((t) =>
          [...t.subscribers.values()]
            .filter(matches(t, organizationId, query.filter))
            .sort(compareByKeys(query.sort.map(({ field, order }) => ({ value: pageSortValue(field), order }))))
            .slice(query.offset, query.offset + query.limit)
        ),
      count: (organizationId, filter, upTo) =>
        store.read((t) => {
          const matching = [...t.subscribers.values()].filter(matches(t, organizationId, filter)).length
          return upTo === undefined ? matching : Math.min(matching, upTo)
        }),
      countByStatus: (organizationId) =>
        store.read((t) => {
          const counts = new Map<SubscriberStatus, number>()
          for (const s of t.subscribers.values()) {
            if (s.organizationId === organizationId) counts.set(s.status, (counts.get(s.status) ?? 0) + 1)
          }
          return [...counts].map(([status, count]) => ({ status, count }))
        }),
      createdPerDay: (organizationId, range) =>
        store.read((t) => {
          const dayOf = calendarDay(range.timeZone)
          const counts = new Map<string, number>()
          for (const s of t.subscribers.values()) {
            if (s.organizationId !== organizationId || s.createdAt < range.from || s.createdAt >= range.to) continue
            const day = dayOf(s.createdAt)
            counts.set(day, (counts.get(day) ?? 0) + 1)
          }
          return [...counts].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0).map(([day, count]) => ({ day, count }))
        }),
      exportPage: (organizationId, query) =>
        store.read((t) => {
          const value = sortValue("created_at")
          const after = query.after === undefined ? undefined : { value: instant(query.after.value), id: query.after.id }
          return [...t.subscribers.values()]
            .filter(matches(t, organizationId, query))
            .filter((s) => after === undefined || isAfter(s, value, after, "asc"))
            .sort(compareBy(value, "asc"))
            .slice(0, query.limit)
            .map((s) => ({
              id: s.id,
              email: s.email,
              firstName: s.firstName,
              lastName: s.lastName,
              status: s.status,
              tagNames: tagSubscriptionsOf(t, s.id).map(({ tag }) => tag.name),
              metadata: s.metadata,
              createdAt: s.createdAt.toISOString()
            }))
        }),
      exportAll: (organizationId, query) => exportByKeyset(repository.exportPage, organizationId, query, query.pageSize),
      metadataKeys: (organizationId, filter) =>
        store.read((t) => {
          const keys = new Set<string>()
          for (const s of t.subscribers.values()) {
            if (matches(t, organizationId, filter)(s)) for (const key of Object.keys(s.metadata)) keys.add(key)
          }
          return [...keys].sort(compareText)
        })
    })
    return repository
  })
)
