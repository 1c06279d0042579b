import { activityEventTypes, type CampaignActivity, type MessageFilter, MessageRepository } from "@roster/application"
import type { CampaignId, Message, MessageEventType, MessageStatus } from "@roster/domain"
import { Effect, Layer, Option } from "effect"
import { MemoryStore, type Tables } from "./memory-store.js"
import { compareBy } from "./ordering.js"

/** The statuses of an email that went out to the provider. */
const wentOut: ReadonlySet<MessageStatus> = new Set(["sent", "delivered", "opened", "clicked", "bounced", "complained"])

const newestFirst = compareBy((m: Message) => m.createdAt.toISOString(), "desc")
const matching = (t: Tables, { organizationId, status, subscriberId }: MessageFilter) =>
  [...t.messages.values()].map((s) => s.message).filter((m) =>
    m.organizationId === organizationId &&
    (subscriberId === undefined || m.subscriberId === subscriberId) &&
    (status === undefined || m.status === status)
  )

/** Messages in memory, read; the outgoing mail queue writes them. */
export const MemoryMessageRepositoryLive = Layer.effect(
  MessageRepository,
  Effect.gen(function*() {
    const store = yield* MemoryStore

    return MessageRepository.of({
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

      campaignStats: (ids) =>
        store.read((t) => {
          const byCampaign = new Map<CampaignId, Partial<Record<MessageStatus, number>>>()
          for (const { message } of t.messages.values()) {
            const id = message.campaignId
            if (id === null || !ids.includes(id)) continue
            const counts = byCampaign.get(id) ?? {}
            byCampaign.set(id, { ...counts, [message.status]: (counts[message.status] ?? 0) + 1 })
          }
          return byCampaign
        }),

      campaignActivity: (id, window) =>
        store.read((t): CampaignActivity => {
          const counts = new Map<string, number>()
          let unsubscribed = 0
          const unsubscribers = new Set<string>()
          for (const { history, message } of t.messages.values()) {
            if (message.campaignId !== id) continue
            const firsts = new Map<MessageEventType, number>()
            for (const event of history) {
              if (!activityEventTypes.includes(event.type)) continue
              const at = event.occurredAt.getTime()
              if (!firsts.has(event.type) || at < firsts.get(event.type)!) firsts.set(event.type, at)
            }
            for (const [type, at] of firsts) {
              const step = Math.floor((at - window.since.getTime()) / window.stepMs)
              const bucket = Math.min(Math.max(step, 0), window.buckets - 1)
              counts.set(`${bucket}/${type}`, (counts.get(`${bucket}/${type}`) ?? 0) + 1)
            }
            const subscriber = t.subscribers.get(message.subscriberId)
            if (
              wentOut.has(message.status) && subscriber?.status === "unsubscribed" &&
              subscriber.updatedAt.getTime() >= message.createdAt.getTime() && !unsubscribers.has(subscriber.id)
            ) {
              unsubscribers.add(subscriber.id)
              unsubscribed++
            }
          }
          return {
            timeline: [...counts].map(([key, count]) => {
              const [bucket, type] = key.split("/")
              return { bucket: Number(bucket), type: type as MessageEventType, count }
            }).sort((a, b) => a.bucket - b.bucket || a.type.localeCompare(b.type)),
            unsubscribed
          }
        }),

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

    })
  })
)
