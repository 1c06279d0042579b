import { SegmentAudience } from "@roster/application"
import {
  type EngagementFacts,
  matchesFilter,
  type MessageEventType,
  noEngagement,
  type SegmentFilter,
  type Subscriber
} from "@roster/domain"
import { Effect, Layer } from "effect"
import { MemoryStore, type Tables } from "./memory-store.js"
import { compareText } from "./ordering.js"

const opened: ReadonlySet<MessageEventType> = new Set(["opened", "clicked"])
const received: ReadonlySet<MessageEventType> = new Set(["sent", "delivered", "opened", "clicked"])

const latest = (current: Date | null, at: Date): Date => current === null || at > current ? at : current

/** When each subscriber of the organization last opened, clicked and received email, from their messages' histories. */
const engagementOf = (t: Tables, organizationId: string): ReadonlyMap<string, EngagementFacts> => {
  const facts = new Map<string, EngagementFacts>()
  for (const stored of t.messages.values()) {
    if (stored.message.organizationId !== organizationId) continue
    let next = facts.get(stored.message.subscriberId) ?? noEngagement
    for (const event of stored.history) {
      next = {
        lastOpenedAt: opened.has(event.type) ? latest(next.lastOpenedAt, event.occurredAt) : next.lastOpenedAt,
        lastClickedAt: event.type === "clicked" ? latest(next.lastClickedAt, event.occurredAt) : next.lastClickedAt,
        lastReceivedAt: received.has(event.type) ? latest(next.lastReceivedAt, event.occurredAt) : next.lastReceivedAt
      }
    }
    facts.set(stored.message.subscriberId, next)
  }
  return facts
}

/**
 * Whether a subscriber of the organization is one the filter holds at `now`, by the domain's
 * evaluator; a subscriber whose erasure is under way is in no segment. The campaign store selects
 * a segment's audience with it too.
 */
export const segmentMembership = (t: Tables, organizationId: string, filter: SegmentFilter, now: Date) => {
  const engagement = engagementOf(t, organizationId)
  return (subscriber: Subscriber): boolean =>
    subscriber.organizationId === organizationId &&
    !t.erasureRequests.has(subscriber.id) &&
    matchesFilter(filter, {
      subscriber,
      tagIds: new Set(t.assignments.get(subscriber.id)?.keys() ?? []),
      engagement: engagement.get(subscriber.id) ?? noEngagement
    }, now)
}

/** The organization's subscribers that match, by id ascending. */
const matching = (t: Tables, organizationId: string, filter: SegmentFilter, now: Date): ReadonlyArray<Subscriber> =>
  [...t.subscribers.values()]
    .filter(segmentMembership(t, organizationId, filter, now))
    .sort((a, b) => compareText(a.id, b.id))

/** Evaluates a segment filter over every subscriber of the organization with the domain's evaluator. */
export const MemorySegmentAudienceLive = Layer.effect(
  SegmentAudience,
  Effect.map(MemoryStore, (store) =>
    SegmentAudience.of({
      count: (organizationId, filter, now) => store.read((t) => matching(t, organizationId, filter, now).length),
      page: (organizationId, filter, now, { after, limit, offset = 0 }) =>
        store.read((t) =>
          matching(t, organizationId, filter, now)
            .filter((s) => after === undefined || compareText(s.id, after) > 0)
            .slice(offset, offset + limit)
        ),
      matches: (organizationId, filter, now, subscriberId) =>
        store.read((t) => {
          const subscriber = t.subscribers.get(subscriberId)
          return subscriber !== undefined && segmentMembership(t, organizationId, filter, now)(subscriber)
        })
    }))
)
