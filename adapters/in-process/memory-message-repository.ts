import { type MessageFilter, MessageRepository } from "@roster/application"
import { Message, MessageEvent, type MessageEventType } from "@roster/domain"
import { Effect, Layer, Option } from "effect"
import { MemoryStore, type StoredMessage, type Tables } from "./memory-store.js"
import { compareBy } from "./ordering.js"

const newestFirst = compareBy((m: Message) => m.createdAt.toISOString(), "desc")
const oldestFirst = compareBy((m: Message) => m.createdAt.toISOString(), "asc")

const byDue = (a: StoredMessage, b: StoredMessage) =>
  a.nextAttemptAt!.getTime() - b.nextAttemptAt!.getTime() || oldestFirst(a.message, b.message)

/** A single send (campaign emails are leased apart) that is queued and due at `now`. */
const isDue = (s: StoredMessage, now: Date) =>
  s.message.campaignId === null && s.message.status === "queued" && s.nextAttemptAt !== null && s.nextAttemptAt <= now

/** Sets each stored message of `batch` to `change(stored)`. */
const changeBatch = (t: Tables, key: string, change: (stored: StoredMessage) => StoredMessage | undefined) => {
  for (const [id, stored] of t.messages) {
    if (stored.leaseToken !== key || stored.message.status !== "queued") continue
    const changed = change(stored)
    if (changed !== undefined) t.messages.set(id, changed)
  }
}

const withEvent = (stored: StoredMessage, type: MessageEventType, at: Date, detail: string | null) =>
  [...stored.history, new MessageEvent({ type, occurredAt: at, detail })]

const matching = (t: Tables, { organizationId, status, subscriberId }: MessageFilter) =>
  [...t.messages.values()].map((s) => s.message).filter((m) =>
    m.organizationId === organizationId &&
    (subscriberId === undefined || m.subscriberId === subscriberId) &&
    (status === undefined || m.status === status)
  )

/** Messages in memory, leased as the PostgreSQL adapter leases them. */
export const MemoryMessageRepositoryLive = Layer.effect(
  MessageRepository,
  Effect.gen(function*() {
    const store = yield* MemoryStore

    return MessageRepository.of({
      insert: (message, first) =>
        store.write((t) => {
          if (t.messages.has(message.id)) return false
          t.messages.set(message.id, {
            message,
            history: [first],
            leaseToken: null,
            nextAttemptAt: message.status === "queued" ? message.createdAt : null
          })
          return true
        }),

      findById: (organizationId, id) =>
        store.read((t) => {
          const stored = t.messages.get(id)
          return stored?.message.organizationId === organizationId ? Option.some(stored.message) : Option.none()
        }),

      organizationOf: (id) => store.read((t) => Option.fromNullable(t.messages.get(id)?.message.organizationId)),

      history: (id) => store.read((t) => t.messages.get(id)?.history ?? []),

      histories: (ids) =>
        store.read((t) => new Map(ids.map((id) => [id, t.messages.get(id)?.history ?? []] as const))),

      list: ({ after, limit, offset = 0, ...filter }) =>
        store.read((t) => {
          const rows = matching(t, filter).filter((m) =>
            after === undefined || newestFirst(m, { id: after.id, createdAt: new Date(after.value) } as Message) > 0
          )
          return rows.sort(newestFirst).slice(offset, offset + limit)
        }),

      count: (filter) => store.read((t) => matching(t, filter).length),

      anyDue: (now) =>
        store.read((t) => {
          for (const s of t.messages.values()) {
            if (isDue(s, now)) return true
          }
          return false
        }),

      leaseDue: ({ leaseMs, limit, newKey, now }) =>
        store.write((t) => {
          const until = new Date(now.getTime() + leaseMs)
          const due = [...t.messages.values()]
            .filter((s) => isDue(s, now))
            .sort(byDue)
          const again = due.find((s) => s.leaseToken !== null)
          const taken = again !== undefined
            ? due.filter((s) => s.leaseToken === again.leaseToken)
            : due.filter((s) => s.leaseToken === null).slice(0, limit)
          if (taken.length === 0) return Option.none()
          const key = again?.leaseToken ?? newKey
          const leased = taken.map((s) => {
            const message = new Message({ ...s.message, attemptCount: s.message.attemptCount + 1, updatedAt: now })
            t.messages.set(message.id, { ...s, message, leaseToken: key, nextAttemptAt: until })
            return message
          })
          return Option.some({ key, messages: leased.sort(oldestFirst) })
        }),

      markSent: (key, sent, at) =>
        store.write((t) => {
          const providerIds = new Map(sent.map((s) => [s.id as string, s.providerId]))
          changeBatch(t, key, (stored) => {
            const providerId = providerIds.get(stored.message.id)
            if (providerId === undefined) return undefined
            return {
              message: new Message({ ...stored.message, status: "sent", providerId, error: null, updatedAt: at }),
              history: withEvent(stored, "sent", at, null),
              leaseToken: null,
              nextAttemptAt: null
            }
          })
        }),

      postpone: (key, retryAt, error, at) =>
        store.write((t) =>
          changeBatch(t, key, (stored) => ({
            ...stored,
            message: new Message({ ...stored.message, error, updatedAt: at }),
            history: withEvent(stored, "retrying", at, error),
            nextAttemptAt: retryAt
          }))
        ),

      unbatch: (key, at) =>
        store.write((t) =>
          changeBatch(t, key, (stored) => ({
            ...stored,
            message: new Message({ ...stored.message, updatedAt: at }),
            leaseToken: stored.message.id,
            nextAttemptAt: at
          }))
        ),

      markFailed: (key, error, at) =>
        store.write((t) =>
          changeBatch(t, key, (stored) => ({
            message: new Message({ ...stored.message, status: "failed", error, updatedAt: at }),
            history: withEvent(stored, "failed", at, error),
            leaseToken: null,
            nextAttemptAt: null
          }))
        ),

      findByProviderId: (providerId) =>
        store.read((t) => {
          for (const stored of t.messages.values()) {
            if (stored.message.providerId === providerId) return Option.some(stored.message)
          }
          return Option.none()
        }),

      latestTo: (address) =>
        store.read((t) => {
          const wanted = address.toLowerCase()
          const latest = new Map<string, Message>()
          for (const { message } of t.messages.values()) {
            if (message.providerId === null || message.to.toLowerCase() !== wanted) continue
            const seen = latest.get(message.organizationId)
            if (seen === undefined || seen.id < message.id) latest.set(message.organizationId, message)
          }
          return [...latest.values()]
        }),

      claimReport: (organizationId, key, at) =>
        store.write((t) => {
          const claim = `${organizationId}/${key}`
          if (!t.organizations.has(organizationId) || t.providerReports.has(claim)) return false
          t.providerReports.set(claim, at)
          return true
        }),

      recordReport: (id, report, next) =>
        store.write((t) => {
          const stored = t.messages.get(id)
          if (stored === undefined || t.messageReportKeys.has(report.key)) return false
          t.messageReportKeys.set(report.key, id)
          const status = next(stored.message.status)
          t.messages.set(id, {
            ...stored,
            message: status === stored.message.status
              ? stored.message
              : new Message({ ...stored.message, status, updatedAt: report.occurredAt }),
            history: withEvent(stored, report.type, report.occurredAt, report.detail)
          })
          return true
        })
    })
  })
)
