import {
  applySubscriberChanges,
  DomainEvent,
  emailKey,
  EventId,
  type Message,
  type MessageEventType,
  type OrganizationId,
  statusAfter,
  type SubscriberId
} from "@roster/domain"
import { Effect, Either, Option } from "effect"
import { Ids } from "./ports/ids.js"
import { MessageRepository } from "./ports/message-repository.js"
import { Outbox } from "./ports/outbox.js"
import { OutgoingMail } from "./ports/outgoing-mail.js"
import { SubscriberRepository } from "./ports/subscriber-repository.js"
import { TagAssignments } from "./ports/tag-assignments.js"
import { UnitOfWork } from "./ports/unit-of-work.js"
import { subscriberSnapshot } from "./support/event-payloads.js"
import { operations } from "./support/operation.js"

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
 * opening and clicking move the message forward.
 *
 * A hard bounce or a complaint also moves subscribers (through the transition table, as the
 * provider) and tells webhooks `subscriber.updated`, each organization in a transaction of its own:
 * - a hard bounce reaches the address in every organization that holds it, emailed or not: the
 *   service sends for all of them from one reputation, and an address that bounced is gone for all;
 * - a complaint reaches the subscriber of the email complained about, in its organization only;
 *   when the provider's id names no email of ours, every organization that holds the address.
 * The same report twice changes nothing twice: each organization notes the reports it applied.
 */
export class ProviderEvents extends Effect.Service<ProviderEvents>()("roster/ProviderEvents", {
  effect: Effect.gen(function*() {
    const operation = yield* operations
    const messages = yield* MessageRepository
    const outgoing = yield* OutgoingMail
    const subscribers = yield* SubscriberRepository
    const assignments = yield* TagAssignments
    const outbox = yield* Outbox
    const unitOfWork = yield* UnitOfWork
    const ids = yield* Ids

    /** The message the provider's id names, else the latest email to each recipient in each organization. */
    const messagesOf = (report: ProviderEventReport) =>
      Effect.gen(function*() {
        if (report.providerId !== null) {
          const found = yield* messages.findByProviderId(report.providerId)
          if (Option.isSome(found)) return { named: true, found: [found.value] }
        }
        const each = yield* Effect.forEach(report.recipients, (address) => messages.latestTo(address))
        return { named: false, found: each.flat() }
      })

    /**
     * The subscribers a hard bounce or a complaint moves, by organization: those of the emails it
     * found, and, for a hard bounce or a complaint about an email we do not know, everyone who
     * holds one of its addresses.
     */
    const subscribersOf = (
      type: "bounced" | "complained",
      report: ProviderEventReport,
      named: boolean,
      found: ReadonlyArray<Message>
    ) =>
      Effect.gen(function*() {
        const byOrganization = new Map<OrganizationId, Set<SubscriberId>>()
        const add = (organizationId: OrganizationId, id: SubscriberId) => {
          const ids = byOrganization.get(organizationId) ?? new Set()
          byOrganization.set(organizationId, ids.add(id))
        }
        for (const message of found) add(message.organizationId, message.subscriberId)
        if (type === "bounced" || !named) {
          const addresses = new Set([...report.recipients, ...found.map((m) => m.to)].map(emailKey))
          for (const address of addresses) {
            for (const holder of yield* subscribers.holdersOf(address)) add(holder.organizationId, holder.id)
          }
        }
        return byOrganization
      })

    /** Moves a subscriber to `bounced` or `complained`, where the transition table allows it. */
    const moveSubscriber = (organizationId: OrganizationId, id: SubscriberId, to: "bounced" | "complained", at: Date) =>
      Effect.gen(function*() {
        const found = yield* subscribers.findByIdForUpdate(organizationId, id)
        if (Option.isNone(found)) return
        const moved = applySubscriberChanges(found.value, { status: to }, "provider", at)
        if (Either.isLeft(moved) || moved.right.changed.length === 0) return
        const { changed, subscriber } = moved.right
        yield* subscribers.update(subscriber)
        const tags = (yield* assignments.tagsOf(organizationId, [subscriber.id])).get(subscriber.id) ?? []
        yield* outbox.record([
          new DomainEvent({
            id: EventId.make(yield* ids.next),
            organizationId,
            type: "subscriber.updated",
            occurredAt: at,
            data: { subscriber: subscriberSnapshot(subscriber, tags), changed }
          })
        ])
      })

    /** Records the report on the message; whether it was recorded now. */
    const recordOn = (message: Message, type: MessageEventType, report: ProviderEventReport, alone: boolean) =>
      outgoing.recordReport(
        message.id,
        { type, occurredAt: report.occurredAt, detail: report.detail, key: alone ? report.key : `${report.key}/${message.id}` },
        (current) => statusAfter(current, type)
      )

    const receive = operation("ProviderEvents.receive")(function*(report: ProviderEventReport) {
      const type = report.type
      if (type === null) return { recorded: 0 } satisfies ProviderEventOutcome
      const { found, named } = yield* messagesOf(report)
      const alone = found.length === 1
      if (type !== "bounced" && type !== "complained") {
        let recorded = 0
        for (const message of found) {
          if (yield* unitOfWork.transaction(recordOn(message, type, report, alone))) recorded++
        }
        return { recorded } satisfies ProviderEventOutcome
      }
      const moving = yield* subscribersOf(type, report, named, found)
      const organizations = new Set([...found.map((m) => m.organizationId), ...moving.keys()])
      let recorded = 0
      for (const organizationId of organizations) {
        recorded += yield* unitOfWork.transaction(Effect.gen(function*() {
          if (!(yield* outgoing.claimReport(organizationId, report.key, report.occurredAt))) return 0
          const own = found.filter((m) => m.organizationId === organizationId)
          let fresh = 0
          for (const message of own) if (yield* recordOn(message, type, report, alone)) fresh++
          // An email that holds the report already took it before reports were noted by organization.
          if (own.length > 0 && fresh === 0) return 0
          for (const id of moving.get(organizationId) ?? []) {
            yield* moveSubscriber(organizationId, id, type, report.occurredAt)
          }
          return fresh
        }))
      }
      return { recorded } satisfies ProviderEventOutcome
    })

    return { receive } as const
  })
}) {}
