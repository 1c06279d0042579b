import { type CampaignFilter, CampaignRepository, type LeasedCampaignBatch } from "@roster/application"
import {
  audienceStatuses,
  Campaign,
  type CampaignAudience,
  type CampaignId,
  type CampaignStatus,
  Message,
  MessageEvent,
  MessageId,
  type MessageKind,
  type MessageStatus,
  type OrganizationId
} from "@roster/domain"
import { Effect, Layer, Option } from "effect"
import { randomUUID } from "node:crypto"
import { MemoryStore, type StoredMessage, type Tables } from "./memory-store.js"
import { compareBy, compareText } from "./ordering.js"

const newestFirst = compareBy((c: Campaign) => c.createdAt.toISOString(), "desc")

const matching = (t: Tables, { organizationId, status }: CampaignFilter) =>
  [...t.campaigns.values()].map((s) => s.campaign).filter((c) =>
    c.organizationId === organizationId && (status === undefined || c.status === status)
  )

/** The audience's subscribers, in id order: the condition the PostgreSQL adapter counts and takes them with. */
const audienceOf = (t: Tables, organizationId: OrganizationId, audience: CampaignAudience, kind: MessageKind) => {
  const statuses = audienceStatuses(kind)
  return [...t.subscribers.values()].filter((s) => {
    if (s.organizationId !== organizationId || !statuses.includes(s.status) || t.erasureRequests.has(s.id)) return false
    const tags = t.assignments.get(s.id)
    if (audience.tagIds.length > 0 && !audience.tagIds.some((id) => tags?.has(id))) return false
    return !audience.excludeTagIds.some((id) => tags?.has(id))
  }).sort((a, b) => compareText(a.id, b.id))
}

const withEvent = (stored: StoredMessage, type: MessageEvent["type"], at: Date, detail: string | null) =>
  [...stored.history, new MessageEvent({ type, occurredAt: at, detail })]

const campaignMessages = (t: Tables, id: CampaignId) => [...t.messages.values()].filter((s) => s.message.campaignId === id)

const isSending = (t: Tables, id: string | null) => id !== null && t.campaigns.get(id)?.campaign.status === "sending"

/** Campaigns in memory, with their recipients' messages among the other messages, leased as PostgreSQL leases them. */
export const MemoryCampaignRepositoryLive = Layer.effect(
  CampaignRepository,
  Effect.gen(function*() {
    const store = yield* MemoryStore

    const moved = (t: Tables, id: CampaignId, changes: Partial<Campaign>) => {
      const stored = t.campaigns.get(id)!
      const campaign = new Campaign({ ...stored.campaign, ...changes })
      t.campaigns.set(id, { ...stored, campaign })
      return campaign
    }

    const finishedAt = (to: CampaignStatus, at: Date) => ["sent", "failed", "cancelled"].includes(to) ? at : null

    const isDone = (t: Tables, id: CampaignId) =>
      t.campaigns.get(id)?.campaign.status === "sending" &&
      t.campaignAudiences.get(id)?.complete === true &&
      !campaignMessages(t, id).some((s) => s.message.status === "queued")

    const batchOf = (t: Tables, key: string, taken: ReadonlyArray<StoredMessage>): Option.Option<LeasedCampaignBatch> => {
      if (taken.length === 0) return Option.none()
      const stored = t.campaigns.get(taken[0]!.message.campaignId!)!
      const ordered = [...taken].sort((a, b) => compareText(a.message.subscriberId, b.message.subscriberId))
      const recipients = ordered.map(({ message }) => {
        const subscriber = t.subscribers.get(message.subscriberId)!
        const tagNames = [...(t.assignments.get(subscriber.id)?.keys() ?? [])]
          .map((id) => t.tags.get(id)?.name)
          .filter((name): name is string => name !== undefined)
          .sort(compareText)
        return {
          message: new Message({ ...message, to: subscriber.email }),
          status: subscriber.status,
          firstName: subscriber.firstName,
          lastName: subscriber.lastName,
          metadata: subscriber.metadata,
          tagNames,
          tokenVersion: t.preferenceTokenVersions.get(subscriber.id) ?? 0,
          erasureRequested: t.erasureRequests.has(subscriber.id)
        }
      })
      return Option.some({
        key,
        campaign: { campaign: stored.campaign, sendout: stored.sendout! },
        tier: t.organizations.get(stored.campaign.organizationId)!.tier,
        recipients,
        position: ordered.at(-1)!.message.subscriberId
      })
    }

    const lease = (t: Tables, stored: StoredMessage, key: string, now: Date, until: Date) => {
      const message = new Message({ ...stored.message, attemptCount: stored.message.attemptCount + 1, updatedAt: now })
      const leased = { ...stored, message, leaseToken: key, nextAttemptAt: until }
      t.messages.set(message.id, leased)
      return leased
    }

    return CampaignRepository.of({
      insert: (campaign) =>
        store.write((t) => {
          t.campaigns.set(campaign.id, { campaign, sendout: null })
        }),

      findById: (organizationId, id) =>
        store.read((t) => {
          const stored = t.campaigns.get(id)
          return stored?.campaign.organizationId === organizationId ? Option.some(stored.campaign) : Option.none()
        }),

      list: ({ after, limit, offset = 0, ...filter }) =>
        store.read((t) =>
          matching(t, filter)
            .filter((c) =>
              after === undefined || newestFirst(c, { id: after.id, createdAt: new Date(after.value) } as Campaign) > 0
            )
            .sort(newestFirst)
            .slice(offset, offset + limit)
        ),

      count: (filter) => store.read((t) => matching(t, filter).length),

      stats: (ids) =>
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

      save: (campaign, from) =>
        store.write((t) => {
          const stored = t.campaigns.get(campaign.id)
          if (stored === undefined || stored.campaign.organizationId !== campaign.organizationId) return false
          if (!from.includes(stored.campaign.status)) return false
          t.campaigns.set(campaign.id, { ...stored, campaign })
          return true
        }),

      transition: (id, from, to, changes) =>
        store.write((t) => {
          const stored = t.campaigns.get(id)
          if (stored === undefined || !from.includes(stored.campaign.status)) return Option.none()
          const progress = t.campaignAudiences.get(id)
          if (to === "cancelled" && progress !== undefined) t.campaignAudiences.set(id, { ...progress, members: [] })
          return Option.some(moved(t, id, {
            status: to,
            updatedAt: changes.at,
            finishedAt: finishedAt(to, changes.at),
            failureReason: changes.failureReason ?? null,
            ...(changes.scheduledAt === undefined ? {} : { scheduledAt: changes.scheduledAt }),
            ...(changes.sandboxed === undefined ? {} : { sandboxed: changes.sandboxed })
          }))
        }),

      start: (id, from, sendout, at, sandboxed) =>
        store.write((t) => {
          const stored = t.campaigns.get(id)
          if (stored === undefined || !from.includes(stored.campaign.status)) return Option.none()
          t.campaigns.set(id, { ...stored, sendout })
          const campaign = moved(t, id, {
            status: "sending",
            startedAt: stored.campaign.startedAt ?? at,
            updatedAt: at,
            ...(sandboxed === undefined ? {} : { sandboxed })
          })
          if (!t.campaignAudiences.has(id)) {
            const { audience, kind, organizationId } = campaign
            const members = audienceOf(t, organizationId, audience, kind).map((s) => s.id as string)
            t.campaignAudiences.set(id, { fixedAt: at, members, cursor: null, complete: false })
          }
          return Option.some(campaign)
        }),

      retry: (id, at) =>
        store.write((t) => {
          if (t.campaigns.get(id)?.campaign.status !== "failed") return Option.none()
          const campaign = moved(t, id, { status: "sending", failureReason: null, finishedAt: null, updatedAt: at })
          for (const stored of campaignMessages(t, id)) {
            if (stored.message.status !== "failed") continue
            t.messages.set(stored.message.id, {
              message: new Message({ ...stored.message, status: "queued", error: null, attemptCount: 0, updatedAt: at }),
              history: withEvent(stored, "queued", at, "the campaign was retried"),
              leaseToken: null,
              nextAttemptAt: at
            })
          }
          return Option.some(campaign)
        }),

      countAudience: (organizationId, audience, kind) =>
        store.read((t) => audienceOf(t, organizationId, audience, kind).length),

      dueScheduled: (now, limit) =>
        store.read((t) =>
          [...t.campaigns.values()].map((s) => s.campaign)
            .filter((c) => c.status === "scheduled" && c.scheduledAt !== null && c.scheduledAt <= now)
            .sort((a, b) => a.scheduledAt!.getTime() - b.scheduledAt!.getTime())
            .slice(0, limit)
        ),

      fixAudience: (limit, at) =>
        store.write((t) => {
          const open = [...t.campaignAudiences.entries()]
            .filter(([id, progress]) => !progress.complete && isSending(t, id))
            .sort(([, a], [, b]) => a.fixedAt.getTime() - b.fixedAt.getTime())[0]
          if (open === undefined) return Option.none()
          const [id, progress] = open
          const { campaign, sendout } = t.campaigns.get(id)!
          const taken = progress.members
            .filter((id) => progress.cursor === null || compareText(id, progress.cursor) > 0)
            .slice(0, limit)
          // A subscriber deleted since the start is no longer there to send to.
          const chosen = taken.map((id) => t.subscribers.get(id)).filter((s) => s !== undefined)
          const present = new Set(campaignMessages(t, campaign.id).map((s) => s.message.subscriberId as string))
          let added = 0
          for (const subscriber of chosen) {
            if (present.has(subscriber.id)) continue
            const message = new Message({
              id: MessageId.make(randomUUID()),
              organizationId: campaign.organizationId,
              subscriberId: subscriber.id,
              templateId: campaign.templateId,
              campaignId: campaign.id,
              kind: campaign.kind,
              to: subscriber.email,
              from: sendout!.from,
              subject: "",
              html: null,
              text: null,
              headers: {},
              status: "queued",
              providerId: null,
              error: null,
              attemptCount: 0,
              createdAt: at,
              updatedAt: at
            })
            t.messages.set(message.id, { message, history: [], leaseToken: null, nextAttemptAt: at })
            added += 1
          }
          const complete = taken.length < limit
          t.campaignAudiences.set(id, {
            ...progress,
            members: complete ? [] : progress.members,
            cursor: taken.at(-1) ?? progress.cursor,
            complete
          })
          return Option.some({ id: campaign.id, added, complete })
        }),

      anyDue: (now) =>
        store.read((t) => {
          for (const s of t.messages.values()) {
            if (s.message.status !== "queued" || !isSending(t, s.message.campaignId)) continue
            if (s.leaseToken === null || s.nextAttemptAt! <= now) return true
          }
          return false
        }),

      leaseDue: ({ after, leaseMs, limit, newKey, now, overdue = true, positions = new Map() }) =>
        store.write((t) => {
          const until = new Date(now.getTime() + leaseMs)
          const queued = [...t.messages.values()].filter((s) =>
            s.message.status === "queued" && isSending(t, s.message.campaignId)
          )
          const again = overdue
            ? queued
              .filter((s) => s.leaseToken !== null && s.nextAttemptAt! <= now)
              .sort((a, b) =>
                a.nextAttemptAt!.getTime() - b.nextAttemptAt!.getTime() || compareText(a.message.id, b.message.id)
              )[0]
            : undefined
          if (again !== undefined) {
            const key = again.leaseToken!
            const batch = queued.filter((s) => s.leaseToken === key && s.nextAttemptAt! <= now)
            return batchOf(t, key, batch.map((s) => lease(t, s, key, now, until)))
          }
          const fresh = queued.filter((s) => {
            const position = positions.get(s.message.campaignId!)
            return s.leaseToken === null && (position === undefined || compareText(s.message.subscriberId, position) > 0)
          })
          const sending = [...new Set(fresh.map((s) => s.message.campaignId!))].sort(compareText)
          const next = sending.find((id) => after !== undefined && compareText(id, after) > 0) ?? sending[0]
          if (next === undefined) return Option.none()
          const batch = fresh
            .filter((s) => s.message.campaignId === next)
            .sort((a, b) => compareText(a.message.subscriberId, b.message.subscriberId))
            .slice(0, limit)
          return batchOf(t, newKey, batch.map((s) => lease(t, s, newKey, now, until)))
        }),

      settle: (key, outcomes, at) =>
        store.write((t) => {
          for (const outcome of outcomes) {
            const stored = t.messages.get(outcome.id)
            if (stored === undefined || stored.leaseToken !== key || stored.message.status !== "queued") continue
            const detail = outcome.status === "sent" ? null : outcome.detail
            t.messages.set(outcome.id, {
              message: new Message({
                ...stored.message,
                status: outcome.status,
                providerId: outcome.status === "sent" ? outcome.providerId : null,
                subject: outcome.subject,
                error: detail,
                updatedAt: at
              }),
              history: withEvent(stored, outcome.status, at, detail),
              leaseToken: null,
              nextAttemptAt: null
            })
          }
        }),

      stop: (id, reason, at) =>
        store.write((t) => {
          if (t.campaigns.get(id)?.campaign.status !== "sending") return
          moved(t, id, { status: "failed", failureReason: reason, finishedAt: at, updatedAt: at })
          for (const stored of campaignMessages(t, id)) {
            if (stored.message.status !== "queued" || stored.leaseToken !== null) continue
            t.messages.set(stored.message.id, {
              message: new Message({ ...stored.message, status: "failed", error: reason, updatedAt: at }),
              history: withEvent(stored, "failed", at, reason),
              leaseToken: null,
              nextAttemptAt: null
            })
          }
        }),

      finishIfDone: (id, at, failedReason) =>
        store.write((t) => {
          if (!isDone(t, id)) return Option.none()
          const failed = campaignMessages(t, id).filter((s) => s.message.status === "failed").length
          return Option.some(moved(t, id, {
            status: failed > 0 ? "failed" : "sent",
            failureReason: failed > 0 ? failedReason(failed) : null,
            finishedAt: at,
            updatedAt: at
          }))
        }),

      doneSending: (limit) =>
        store.read((t) =>
          [...t.campaigns.keys()].filter((id) => isDone(t, id as CampaignId)).slice(0, limit) as Array<CampaignId>
        ),

      withdrawCancelled: (limit) =>
        store.write((t) => {
          const now = new Date()
          let withdrawn = 0
          for (const stored of [...t.messages.values()]) {
            if (withdrawn >= limit) break
            const id = stored.message.campaignId
            if (id === null || t.campaigns.get(id)?.campaign.status !== "cancelled") continue
            if (stored.message.status !== "queued") continue
            if (stored.leaseToken !== null && stored.nextAttemptAt! > now) continue
            t.messages.delete(stored.message.id)
            withdrawn += 1
          }
          return withdrawn
        })
    })
  })
)
