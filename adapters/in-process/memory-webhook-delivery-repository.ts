import { type LeasedDelivery, type WebhookAttemptStats, WebhookDeliveryRepository } from "@roster/application"
import { type DomainEvent, WebhookAttempt, WebhookDelivery, type WebhookDeliveryHistory } from "@roster/domain"
import { Effect, Layer, Option } from "effect"
import { MemoryStore, type StoredDelivery, type Tables } from "./memory-store.js"
import { changeHeld, claimDue } from "./memory-work-queue.js"
import { compareBy, compareText } from "./ordering.js"

const dueFirst = compareBy((delivery: WebhookDelivery) => delivery.nextAttemptAt?.getTime() ?? 0, "asc")
const held = (stored: StoredDelivery) => stored.leaseToken

/**
 * The `p`-th percentile of sorted values as PostgreSQL's percentile_cont computes it (linear
 * interpolation between the closest ranks), rounded to whole milliseconds as the SQL adapter
 * rounds it: floor(x + 0.5), in the same floating-point steps.
 */
const percentileCont = (sorted: ReadonlyArray<number>, p: number): number | null => {
  if (sorted.length === 0) return null
  const position = p * (sorted.length - 1)
  const first = Math.floor(position)
  const second = Math.ceil(position)
  const low = sorted[first]!
  const value = first === second ? low : low + (position - first) * (sorted[second]! - low)
  return Math.floor(value + 0.5)
}

const historyOf = (t: Tables, delivery: WebhookDelivery): WebhookDeliveryHistory => ({
  delivery,
  attempts: t.webhookAttempts.get(delivery.id) ?? []
})

const latest = (dates: ReadonlyArray<Date>): Date | null =>
  dates.reduce<Date | null>((last, date) => (last === null || date.getTime() > last.getTime() ? date : last), null)

export const MemoryWebhookDeliveryRepositoryLive = Layer.effect(
  WebhookDeliveryRepository,
  Effect.gen(function*() {
    const store = yield* MemoryStore

    const owned = (
      t: Tables,
      organizationId: string,
      endpointId: string,
      id: string
    ): Option.Option<StoredDelivery> =>
      Option.fromNullable(t.webhookDeliveries.get(id)).pipe(
        Option.filter(({ delivery }) => delivery.organizationId === organizationId && delivery.endpointId === endpointId)
      )

    return WebhookDeliveryRepository.of({
      insertMany: (deliveries) =>
        store.write((t) => {
          const taken = new Set<string>()
          for (const { delivery } of t.webhookDeliveries.values()) taken.add(`${delivery.endpointId}/${delivery.eventId}`)
          for (const delivery of deliveries) {
            const key = `${delivery.endpointId}/${delivery.eventId}`
            if (taken.has(key)) continue
            taken.add(key)
            t.webhookDeliveries.set(delivery.id, { delivery, leaseToken: null })
          }
        }),

      // Writes take the store's turn, so no two claims interleave. The answer is each delivery as
      // it was before the lease, as the SQL adapter answers it.
      claimDue: ({ leaseToken, leasedUntil, limit, now, skipEndpoints = [] }) =>
        store.write((t) => {
          const skipped = new Set<string>(skipEndpoints)
          const due = claimDue(t.webhookDeliveries, ({ delivery }) => delivery.id, {
            claimable: ({ delivery }) =>
              delivery.status === "pending" && delivery.nextAttemptAt !== null && !skipped.has(delivery.endpointId) &&
              delivery.nextAttemptAt.getTime() <= now.getTime() &&
              t.webhookEndpoints.get(delivery.endpointId)?.status === "active",
            order: (a, b) => dueFirst(a.delivery, b.delivery),
            limit
          }, ({ delivery }) => [
            { delivery: new WebhookDelivery({ ...delivery, nextAttemptAt: leasedUntil, updatedAt: now }), leaseToken },
            delivery
          ])
          const events = new Map<string, DomainEvent>()
          const wanted = new Set<string>(due.map((delivery) => delivery.eventId))
          for (const event of t.events) if (wanted.has(event.id)) events.set(event.id, event)
          const leased: Array<LeasedDelivery> = []
          for (const delivery of due) {
            const endpoint = t.webhookEndpoints.get(delivery.endpointId)
            const event = events.get(delivery.eventId)
            if (endpoint !== undefined && event !== undefined) leased.push({ delivery, endpoint, event })
          }
          return leased
        }),

      recordAttempt: ({ attempt, deliveryId, leaseToken, nextAttemptAt, status }) =>
        store.write((t) => {
          const recorded = changeHeld(t.webhookDeliveries, { token: leaseToken, tokenOf: held, keys: [deliveryId] }, ({ delivery }) => ({
            delivery: new WebhookDelivery({ ...delivery, status, attemptCount: attempt.number, nextAttemptAt, updatedAt: attempt.attemptedAt }),
            leaseToken: null
          }))
          if (recorded.length === 0) return false
          t.webhookAttempts.set(deliveryId, [...(t.webhookAttempts.get(deliveryId) ?? []), attempt])
          return true
        }),

      recordTest: ({ attempt, delivery }) =>
        store.write((t) => {
          const current = t.webhookDeliveries.get(delivery.id)?.delivery
          if (current !== undefined && !current.test) return
          if (t.webhookEndpoints.get(delivery.endpointId)?.organizationId !== delivery.organizationId) return
          const recorded = current === undefined
            ? new WebhookDelivery({ ...delivery, test: true, nextAttemptAt: null })
            : new WebhookDelivery({
              ...current,
              status: delivery.status,
              attemptCount: delivery.attemptCount,
              updatedAt: delivery.updatedAt
            })
          t.webhookDeliveries.set(delivery.id, { delivery: recorded, leaseToken: null })
          t.webhookAttempts.set(delivery.id, [
            ...(t.webhookAttempts.get(delivery.id) ?? []),
            new WebhookAttempt({ ...attempt, nextAttemptAt: null })
          ])
        }),

      holdPending: (endpointId, at) =>
        store.write((t) => {
          for (const [id, stored] of t.webhookDeliveries) {
            const { delivery } = stored
            if (
              delivery.endpointId !== endpointId || delivery.status !== "pending" || delivery.nextAttemptAt === null ||
              stored.leaseToken !== null
            ) continue
            t.webhookDeliveries.set(id, {
              delivery: new WebhookDelivery({ ...delivery, nextAttemptAt: null, updatedAt: at }),
              leaseToken: null
            })
          }
        }),

      resumeHeld: (endpointId, now) =>
        store.write((t) => {
          for (const [id, stored] of t.webhookDeliveries) {
            const { delivery } = stored
            if (delivery.endpointId !== endpointId || delivery.status !== "pending" || delivery.nextAttemptAt !== null) {
              continue
            }
            t.webhookDeliveries.set(id, {
              delivery: new WebhookDelivery({ ...delivery, nextAttemptAt: now, updatedAt: now }),
              leaseToken: stored.leaseToken
            })
          }
        }),

      renewLease: ({ deliveryId, leasedUntil, leaseToken }) =>
        store.write((t) =>
          changeHeld(t.webhookDeliveries, { token: leaseToken, tokenOf: held, keys: [deliveryId] }, (stored) => ({
            delivery: new WebhookDelivery({ ...stored.delivery, nextAttemptAt: leasedUntil }),
            leaseToken
          })).length > 0
        ),

      release: (leaseToken, ids, now) =>
        store.write((t) =>
          void changeHeld(t.webhookDeliveries, { token: leaseToken, tokenOf: held, keys: ids }, ({ delivery }) => ({
            delivery: new WebhookDelivery({ ...delivery, nextAttemptAt: now, updatedAt: now }),
            leaseToken: null
          }))
        ),

      findById: (organizationId, endpointId, id) =>
        store.read((t) => Option.map(owned(t, organizationId, endpointId, id), ({ delivery }) => historyOf(t, delivery))),

      listByEndpoint: ({ after, endpointId, limit, organizationId, status }) =>
        store.read((t) => {
          const rows = [...t.webhookDeliveries.values()]
            .map((stored) => stored.delivery)
            .filter((delivery) =>
              delivery.organizationId === organizationId && delivery.endpointId === endpointId &&
              Option.match(after, { onNone: () => true, onSome: (id) => compareText(delivery.id, id) < 0 }) &&
              Option.match(status, { onNone: () => true, onSome: (wanted) => delivery.status === wanted })
            )
            .sort((a, b) => compareText(b.id, a.id))
          return { items: rows.slice(0, limit).map((delivery) => historyOf(t, delivery)), hasMore: rows.length > limit }
        }),

      retryNow: (organizationId, endpointId, id, now) =>
        store.write((t) =>
          Option.map(owned(t, organizationId, endpointId, id), ({ delivery }) => {
            const retried = new WebhookDelivery({ ...delivery, status: "pending", nextAttemptAt: now, updatedAt: now })
            t.webhookDeliveries.set(id, { delivery: retried, leaseToken: null })
            return historyOf(t, retried)
          })
        ),

      pruneFinished: (before, limit) =>
        store.write((t) => {
          const pruned = [...t.webhookDeliveries.values()]
            .map(({ delivery }) => delivery)
            .filter((delivery) => delivery.status !== "pending" && delivery.updatedAt.getTime() < before.getTime())
            .sort((a, b) => a.updatedAt.getTime() - b.updatedAt.getTime())
            .slice(0, limit)
          for (const delivery of pruned) {
            t.webhookDeliveries.delete(delivery.id)
            t.webhookAttempts.delete(delivery.id)
          }
          return pruned.length
        }),

      stats: ({ endpointId, organizationId, since }) =>
        store.read((t): WebhookAttemptStats => {
          const deliveries = [...t.webhookDeliveries.values()]
            .map((stored) => stored.delivery)
            .filter((delivery) =>
              delivery.organizationId === organizationId &&
              Option.match(endpointId, { onNone: () => true, onSome: (id) => delivery.endpointId === id }) &&
              t.webhookEndpoints.get(delivery.endpointId)?.organizationId === organizationId
            )
          const attempts = deliveries
            .flatMap((delivery) => t.webhookAttempts.get(delivery.id) ?? [])
            .filter((attempt) => attempt.attemptedAt.getTime() >= since.getTime())
          const durations = attempts.map((attempt) => attempt.durationMs).sort((a, b) => a - b)
          const succeeded = attempts.filter((attempt) => attempt.status === "succeeded")
          const failed = attempts.filter((attempt) => attempt.status === "failed")
          return {
            attempts: attempts.length,
            succeeded: succeeded.length,
            failed: failed.length,
            p50Ms: percentileCont(durations, 0.5),
            p95Ms: percentileCont(durations, 0.95),
            lastSuccessAt: latest(succeeded.map((attempt) => attempt.attemptedAt)),
            lastFailureAt: latest(failed.map((attempt) => attempt.attemptedAt)),
            pending: deliveries.filter((delivery) => delivery.status === "pending").length
          }
        })
    })
  })
)
