import { type LeasedCampaignBatch, OutgoingMail } from "@roster/application"
import { creationEvent, Message, MessageEvent, MessageId, type MessageEventType } from "@roster/domain"
import { Effect, Layer, Option } from "effect"
import { randomUUID } from "node:crypto"
import { MemoryStore, type StoredMessage, type Tables } from "./memory-store.js"
import { changeHeld, claimDue, pickDue } from "./memory-work-queue.js"
import { compareBy, compareText } from "./ordering.js"

const oldestFirst = compareBy((m: Message) => m.createdAt.toISOString(), "asc")

const byDue = (a: StoredMessage, b: StoredMessage) =>
  a.nextAttemptAt!.getTime() - b.nextAttemptAt!.getTime() || oldestFirst(a.message, b.message)

/** A single send (campaign emails are leased apart) that is queued and due at `now`. */
const isDue = (s: StoredMessage, now: Date) =>
  s.message.campaignId === null && s.message.status === "queued" && s.nextAttemptAt !== null && s.nextAttemptAt <= now

/** Sets each queued message of the batch leased under `key` to `change(stored)`. */
const changeBatch = (t: Tables, key: string, change: (stored: StoredMessage) => StoredMessage) =>
  void changeHeld(t.messages, { token: key, tokenOf: (s) => s.leaseToken, where: (s) => s.message.status === "queued" }, change)

/** The first message due again whose batch was leased before, in claim order: its batch is taken over whole. */
const dueAgain = (rows: Iterable<StoredMessage>, claimable: (s: StoredMessage) => boolean, order: typeof byDue) =>
  pickDue(rows, { claimable: (s) => s.leaseToken !== null && claimable(s), order, limit: 1 })[0]

/** A message as leased under `key` until `until`: one attempt more. */
const leasedAs = (stored: StoredMessage, key: string, now: Date, until: Date): StoredMessage => ({
  ...stored,
  message: new Message({ ...stored.message, attemptCount: stored.message.attemptCount + 1, updatedAt: now }),
  leaseToken: key,
  nextAttemptAt: until
})

const withEvent = (stored: StoredMessage, type: MessageEventType, at: Date, detail: string | null) =>
  [...stored.history, new MessageEvent({ type, occurredAt: at, detail })]

/** Removes what was sent to a subscriber, as the database's ON DELETE CASCADE does. */
export const deleteSubscriberMail = (t: Tables, subscriberId: string): void => {
  for (const [id, stored] of t.messages) if (stored.message.subscriberId === subscriberId) t.messages.delete(id)
}

/** As the database's ON DELETE SET NULL: an email keeps what it was, without its deleted template. */
export const forgetMailTemplate = (t: Tables, templateId: string): void => {
  for (const [key, stored] of t.messages) {
    if (stored.message.templateId === templateId) {
      t.messages.set(key, { ...stored, message: new Message({ ...stored.message, templateId: null }) })
    }
  }
}

const campaignMessages = (t: Tables, id: string) => [...t.messages.values()].filter((s) => s.message.campaignId === id)

const isSending = (t: Tables, id: string | null) => id !== null && t.campaigns.get(id)?.campaign.status === "sending"

/** The outgoing mail queue in memory, the one writer of its messages, leasing as PostgreSQL leases. */
export const MemoryOutgoingMailLive = Layer.effect(
  OutgoingMail,
  Effect.gen(function*() {
    const store = yield* MemoryStore

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
      const leased = leasedAs(stored, key, now, until)
      t.messages.set(leased.message.id, leased)
      return leased
    }

    return OutgoingMail.of({
      enqueue: (messages) =>
        store.write((t) => {
          const added = new Set<MessageId>()
          for (const message of messages) {
            if (t.messages.has(message.id)) continue
            t.messages.set(message.id, {
              message,
              history: [creationEvent(message)],
              leaseToken: null,
              nextAttemptAt: message.status === "queued" ? message.createdAt : null
            })
            added.add(message.id)
          }
          return added
        }),

      enqueueAudience: ({ campaign, from, subscriberIds }, at) =>
        store.write((t) => {
          // A subscriber deleted since the start is no longer there to send to.
          const chosen = subscriberIds.map((id) => t.subscribers.get(id)).filter((s) => s !== undefined)
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
              from,
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
          return added
        }),

      anyDue: (now) =>
        store.read((t) => {
          for (const s of t.messages.values()) {
            if (isDue(s, now)) return true
            if (s.message.status !== "queued" || !isSending(t, s.message.campaignId)) continue
            if (s.leaseToken === null || s.nextAttemptAt! <= now) return true
          }
          return false
        }),

      lease: ({ leaseMs, limit, newKey, now }) =>
        store.write((t) => {
          const until = new Date(now.getTime() + leaseMs)
          const again = dueAgain(t.messages.values(), (s) => isDue(s, now), byDue)
          const key = again?.leaseToken ?? newKey
          const leased = again !== undefined
            ? changeHeld(t.messages, { token: key, tokenOf: (s) => s.leaseToken, where: (s) => isDue(s, now) }, (s) =>
              leasedAs(s, key, now, until))
            : claimDue(t.messages, (s) => s.message.id, {
              claimable: (s) => isDue(s, now) && s.leaseToken === null,
              order: byDue,
              limit
            }, (s) => {
              const taken = leasedAs(s, key, now, until)
              return [taken, taken]
            })
          if (leased.length === 0) return Option.none()
          return Option.some({ key, messages: leased.map((s) => s.message).sort(oldestFirst) })
        }),

      leaseCampaign: ({ after, leaseMs, limit, newKey, now, overdue = true, positions = new Map() }) =>
        store.write((t) => {
          const until = new Date(now.getTime() + leaseMs)
          const queued = [...t.messages.values()].filter((s) =>
            s.message.status === "queued" && isSending(t, s.message.campaignId)
          )
          const again = overdue
            ? dueAgain(
              queued,
              (s) => s.nextAttemptAt! <= now,
              (a, b) => a.nextAttemptAt!.getTime() - b.nextAttemptAt!.getTime() || compareText(a.message.id, b.message.id)
            )
            : undefined
          if (again !== undefined) {
            const key = again.leaseToken!
            const batch = changeHeld(t.messages, {
              token: key,
              tokenOf: (s) => s.leaseToken,
              where: (s) => s.message.status === "queued" && isSending(t, s.message.campaignId) && s.nextAttemptAt! <= now
            }, (s) => leasedAs(s, key, now, until))
            return batchOf(t, key, batch)
          }
          const fresh = queued.filter((s) => {
            const position = positions.get(s.message.campaignId!)
            return s.leaseToken === null && (position === undefined || compareText(s.message.subscriberId, position) > 0)
          })
          const sending = [...new Set(fresh.map((s) => s.message.campaignId!))].sort(compareText)
          const next = sending.find((id) => after !== undefined && compareText(id, after) > 0) ?? sending[0]
          if (next === undefined) return Option.none()
          const batch = pickDue(fresh, {
            claimable: (s) => s.message.campaignId === next,
            order: (a, b) => compareText(a.message.subscriberId, b.message.subscriberId),
            limit
          })
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
                subject: outcome.subject ?? stored.message.subject,
                error: detail,
                updatedAt: at
              }),
              history: withEvent(stored, outcome.status, at, detail),
              leaseToken: null,
              nextAttemptAt: null
            })
          }
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

      requeueFailed: (campaignId, at) =>
        store.write((t) => {
          for (const stored of campaignMessages(t, campaignId)) {
            if (stored.message.status !== "failed") continue
            t.messages.set(stored.message.id, {
              message: new Message({ ...stored.message, status: "queued", error: null, attemptCount: 0, updatedAt: at }),
              history: withEvent(stored, "queued", at, "the campaign was retried"),
              leaseToken: null,
              nextAttemptAt: at
            })
          }
        }),

      failQueued: (campaignId, reason, at) =>
        store.write((t) => {
          for (const stored of campaignMessages(t, campaignId)) {
            if (stored.message.status !== "queued" || stored.leaseToken !== null) continue
            t.messages.set(stored.message.id, {
              message: new Message({ ...stored.message, status: "failed", error: reason, updatedAt: at }),
              history: withEvent(stored, "failed", at, reason),
              leaseToken: null,
              nextAttemptAt: null
            })
          }
        }),

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
