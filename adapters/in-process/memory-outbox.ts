import { Outbox } from "@roster/application"
import { DomainEvent } from "@roster/domain"
import { Effect, Layer } from "effect"
import { MemoryStore } from "./memory-store.js"

/** The subscriber an event is about: its `data.subscriber.id`, as every subscriber and tag event writes it. */
const subscriberOf = (event: DomainEvent): unknown => {
  const subscriber = (event.data as { readonly subscriber?: unknown }).subscriber
  return typeof subscriber === "object" && subscriber !== null ? (subscriber as { readonly id?: unknown }).id : undefined
}

/** Whether the event moved its subscriber's status to one of `statuses`. */
const movedTo = (event: DomainEvent, statuses: ReadonlyArray<string>): boolean => {
  if (event.type !== "subscriber.updated") return false
  const { changed, subscriber } = event.data as { readonly changed?: unknown; readonly subscriber?: unknown }
  const status = typeof subscriber === "object" && subscriber !== null ? (subscriber as { readonly status?: unknown }).status : undefined
  return Array.isArray(changed) && changed.includes("status") && typeof status === "string" && statuses.includes(status)
}

/**
 * Events in the order they were recorded. A claim takes no lock of its own: a transaction holds
 * the store's turn until it ends, so no other dispatcher claims while one is between its claim and
 * its mark.
 */
export const MemoryOutboxLive = Layer.effect(
  Outbox,
  Effect.gen(function*() {
    const store = yield* MemoryStore
    return Outbox.of({
      record: (events) => store.write((t) => void t.events.push(...events)),
      recorded: (organizationId) => store.read((t) => t.events.filter((e) => e.organizationId === organizationId)),
      recordedAbout: (organizationId, subscriberId) =>
        store.read((t) => t.events.filter((e) => e.organizationId === organizationId && subscriberOf(e) === subscriberId)),
      recordedAboutNewestFirst: (organizationId, subscriberId, { before, limit }) =>
        store.read((t) => {
          const about = t.events.filter((e) => e.organizationId === organizationId && subscriberOf(e) === subscriberId)
          const end = before === undefined ? about.length : about.findIndex((e) => e.id === before)
          return about.slice(Math.max(0, end - limit), Math.max(0, end)).reverse()
        }),
      findByIds: (organizationId, ids) =>
        store.read((t) => {
          const wanted = new Set<string>(ids)
          return t.events.filter((e) => e.organizationId === organizationId && wanted.has(e.id))
        }),
      statusMovesNewestFirst: (organizationId, statuses, { before, limit }) =>
        store.read((t) => {
          const moves = t.events.filter((e) => e.organizationId === organizationId && movedTo(e, statuses))
          const end = before === undefined ? moves.length : moves.findIndex((e) => e.id === before)
          return moves.slice(Math.max(0, end - limit), Math.max(0, end)).reverse()
        }),
      forgetSubscriber: (organizationId, subscriberId) =>
        store.write((t) => {
          let changed = 0
          t.events.forEach((event, i) => {
            if (event.organizationId !== organizationId || subscriberOf(event) !== subscriberId) return
            const note = event.data.note as { readonly id?: unknown } | undefined
            const forgotten = {
              ...event.data,
              subscriber: { id: subscriberId },
              ...(note === undefined ? {} : { note: { id: note.id } })
            }
            if (JSON.stringify(forgotten) === JSON.stringify(event.data)) return
            t.events[i] = new DomainEvent({ ...event, data: forgotten })
            changed++
          })
          return changed
        }),
      claimUndispatched: (limit) =>
        store.read((t) => {
          const claimed: Array<DomainEvent> = []
          for (const event of t.events) {
            if (claimed.length >= limit) break
            if (!t.dispatchedEvents.has(event.id)) claimed.push(event)
          }
          return claimed
        }),
      // Events are claimed in the order recorded, so those up to `last` are the claimed ones.
      markDispatchedThrough: (last, at) =>
        store.write((t) => {
          if (!t.events.some((event) => event.id === last)) return
          for (const event of t.events) {
            if (!t.dispatchedEvents.has(event.id)) t.dispatchedEvents.set(event.id, at)
            if (event.id === last) return
          }
        }),

      pruneDispatched: (before, limit) =>
        store.write((t) => {
          const referenced = new Set([...t.webhookDeliveries.values()].map(({ delivery }) => delivery.eventId as string))
          const pruned = t.events
            .filter((event) =>
              t.dispatchedEvents.has(event.id) && event.occurredAt.getTime() < before.getTime() && !referenced.has(event.id)
            )
            .slice(0, limit)
            .map((event) => event.id as string)
          const gone = new Set(pruned)
          const kept = t.events.filter((event) => !gone.has(event.id))
          t.events.splice(0, t.events.length, ...kept)
          for (const id of pruned) t.dispatchedEvents.delete(id)
          return pruned.length
        })
    })
  })
)
