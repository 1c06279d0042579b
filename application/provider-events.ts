import {
  applySubscriberChanges,
  DomainEvent,
  EventId,
  type Message,
  type MessageEventType,
  statusAfter
} from "@roster/domain"
import { Effect, Either, Option } from "effect"
import { Ids } from "./ports/ids.js"
import { MessageRepository } from "./ports/message-repository.js"
import { Outbox } from "./ports/outbox.js"
import { SubscriberRepository } from "./ports/subscriber-repository.js"
import { TagAssignments } from "./ports/tag-assignments.js"
import { UnitOfWork } from "./ports/unit-of-work.js"
import { subscriberSnapshot } from "./support/event-payloads.js"

/** What the email provider reported, read from its event by the adapter that speaks its format. */
export interface ProviderEventReport {
  /** The event's own id, or a digest of its body: the same event is applied once. */
  readonly key: string
  /** What happened; `null` for kinds the service does not track, which are acknowledged and ignored. */
  readonly type: MessageEventType | null
  /** The provider's id of the email, when the event names one. */
  readonly providerId: string | null
  readonly recipients: ReadonlyArray<string>
  readonly occurredAt: Date
  readonly detail: string | null
}

/** What became of a report: how many messages it was recorded on (0 for a repeat or an unknown email). */
export interface ProviderEventOutcome {
  readonly recorded: number
}

/**
 * Reports of the email provider. A report finds its message by the provider's id stored at send
 * time, else by its recipient (the latest email to that address in each organization). Delivery,
 * opening and clicking move the message forward; a hard bounce or a complaint also moves the
 * subscriber (through the transition table, as the provider) and tells webhooks
 * `subscriber.updated`, in the same transaction. The same report twice changes nothing twice.
 */
export class ProviderEvents extends Effect.Service<ProviderEvents>()("roster/ProviderEvents", {
  effect: Effect.gen(function*() {
    const messages = yield* MessageRepository
    const subscribers = yield* SubscriberRepository
    const assignments = yield* TagAssignments
    const outbox = yield* Outbox
    const unitOfWork = yield* UnitOfWork
    const ids = yield* Ids

    const messagesOf = (report: ProviderEventReport) =>
      Effect.gen(function*() {
        if (report.providerId !== null) {
          const found = yield* messages.findByProviderId(report.providerId)
          if (Option.isSome(found)) return [found.value]
        }
        const each = yield* Effect.forEach(report.recipients, (address) => messages.latestTo(address))
        return each.flat()
      })

    /** Moves the message's subscriber to `bounced` or `complained`, where the transition table allows it. */
    const moveSubscriber = (message: Message, to: "bounced" | "complained", at: Date) =>
      Effect.gen(function*() {
        const found = yield* subscribers.findByIdForUpdate(message.organizationId, message.subscriberId)
        if (Option.isNone(found)) return
        const moved = applySubscriberChanges(found.value, { status: to }, "provider", at)
        if (Either.isLeft(moved) || moved.right.changed.length === 0) return
        const { changed, subscriber } = moved.right
        yield* subscribers.update(subscriber)
        const tags = (yield* assignments.tagsOf(message.organizationId, [subscriber.id])).get(subscriber.id) ?? []
        yield* outbox.record([
          new DomainEvent({
            id: EventId.make(yield* ids.next),
            organizationId: message.organizationId,
            type: "subscriber.updated",
            occurredAt: at,
            data: { subscriber: subscriberSnapshot(subscriber, tags), changed }
          })
        ])
      })

    const receive = Effect.fnUntraced(function*(report: ProviderEventReport) {
      const type = report.type
      if (type === null) return { recorded: 0 } satisfies ProviderEventOutcome
      const found = yield* messagesOf(report)
      let recorded = 0
      for (const message of found) {
        const applied = yield* unitOfWork.transaction(Effect.gen(function*() {
          const fresh = yield* messages.recordReport(
            message.id,
            {
              type,
              occurredAt: report.occurredAt,
              detail: report.detail,
              key: found.length === 1 ? report.key : `${report.key}/${message.id}`
            },
            (current) => statusAfter(current, type)
          )
          if (fresh && (type === "bounced" || type === "complained")) {
            yield* moveSubscriber(message, type, report.occurredAt)
          }
          return fresh
        }))
        if (applied) recorded++
      }
      return { recorded } satisfies ProviderEventOutcome
    })

    return { receive } as const
  })
}) {}
