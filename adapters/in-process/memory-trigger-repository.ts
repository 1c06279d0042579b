import { TriggerRepository } from "@roster/application"
import { type EmailTrigger, type FiringStatus, firesOn, SubscriberId, type TriggerId } from "@roster/domain"
import { Effect, Layer, Option } from "effect"
import { randomUUID } from "node:crypto"
import { MemoryStore } from "./memory-store.js"
import { claimDue } from "./memory-work-queue.js"
import { compareBy, compareText } from "./ordering.js"

const oldestFirst = compareBy((t: EmailTrigger) => t.createdAt.toISOString(), "asc")

const idOf = (value: unknown): string | null =>
  typeof value === "object" && value !== null && typeof (value as { id?: unknown }).id === "string"
    ? (value as { id: string }).id
    : null

/** Email triggers and their firings in memory, fired as the PostgreSQL adapter fires them. */
export const MemoryTriggerRepositoryLive = Layer.effect(
  TriggerRepository,
  Effect.map(MemoryStore, (store) =>
    TriggerRepository.of({
      insert: (trigger) =>
        store.write((t) => {
          t.triggers.set(trigger.id, trigger)
        }),

      update: (trigger) =>
        store.write((t) => {
          if (t.triggers.get(trigger.id)?.organizationId === trigger.organizationId) t.triggers.set(trigger.id, trigger)
        }),

      delete: (organizationId, id) =>
        store.write((t) => {
          if (t.triggers.get(id)?.organizationId !== organizationId) return false
          t.triggers.delete(id)
          for (const firing of t.triggerFirings.values()) if (firing.triggerId === id) t.triggerFirings.delete(firing.id)
          return true
        }),

      findById: (organizationId, id) =>
        store.read((t) => {
          const trigger = t.triggers.get(id)
          return trigger?.organizationId === organizationId ? Option.some(trigger) : Option.none()
        }),

      list: ({ after, limit, offset = 0, organizationId }) =>
        store.read((t) =>
          [...t.triggers.values()]
            .filter((trigger) => trigger.organizationId === organizationId)
            .filter((trigger) =>
              after === undefined ||
              oldestFirst(trigger, { id: after.id, createdAt: new Date(after.value) } as EmailTrigger) > 0
            )
            .sort(oldestFirst)
            .slice(offset, offset + limit)
        ),

      count: (organizationId) => store.read((t) => [...t.triggers.values()].filter((x) => x.organizationId === organizationId).length),

      usingSegment: (organizationId, segmentId) =>
        store.read((t) =>
          [...t.triggers.values()]
            .filter((trigger) => trigger.organizationId === organizationId && trigger.segmentId === segmentId)
            .sort(oldestFirst)
            .map((trigger) => trigger.id)
        ),

      recordFirings: (events, at) =>
        store.write((t) => {
          let recorded = 0
          for (const event of events) {
            const subscriberId = idOf(event.data.subscriber)
            if (subscriberId === null || !t.subscribers.has(subscriberId)) continue
            for (const trigger of t.triggers.values()) {
              if (trigger.organizationId !== event.organizationId || !firesOn(trigger, event.type, idOf(event.data.tag))) continue
              const fired = [...t.triggerFirings.values()].some((f) => f.triggerId === trigger.id && f.subscriberId === subscriberId)
              if (fired) continue
              const id = randomUUID()
              t.triggerFirings.set(id, {
                id,
                triggerId: trigger.id,
                organizationId: trigger.organizationId,
                subscriberId,
                eventId: event.id,
                status: "pending",
                dueAt: new Date(event.occurredAt.getTime() + trigger.delaySeconds * 1000),
                messageId: null,
                detail: null
              })
              recorded += 1
            }
          }
          void at
          return recorded
        }),

      claimDue: (now, limit, leaseMs) =>
        store.write((t) =>
          claimDue(t.triggerFirings, (f) => f.id, {
            claimable: (f) => f.status === "pending" && f.dueAt <= now && t.triggers.get(f.triggerId)?.status === "active",
            order: (a, b) => a.dueAt.getTime() - b.dueAt.getTime() || compareText(a.id, b.id),
            limit
          }, (firing) => [
            { ...firing, dueAt: new Date(now.getTime() + leaseMs) },
            { id: firing.id, subscriberId: SubscriberId.make(firing.subscriberId), trigger: t.triggers.get(firing.triggerId)! }
          ])
        ),

      settle: (id, outcome) =>
        store.write((t) => {
          const firing = t.triggerFirings.get(id)
          if (firing === undefined || firing.status !== "pending") return
          t.triggerFirings.set(id, { ...firing, status: outcome.status, messageId: outcome.messageId, detail: outcome.detail })
        }),

      firingCounts: (ids) =>
        store.read((t) => {
          const counts = new Map<TriggerId, Partial<Record<FiringStatus, number>>>()
          for (const firing of t.triggerFirings.values()) {
            const id = firing.triggerId as TriggerId
            if (!ids.includes(id)) continue
            const current = counts.get(id) ?? {}
            counts.set(id, { ...current, [firing.status]: (current[firing.status] ?? 0) + 1 })
          }
          return counts
        })
    }))
)
