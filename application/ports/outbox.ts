import type { DomainEvent, EventId, OrganizationId, SubscriberId, SubscriberStatus } from "@roster/domain"
import { Context, type Effect } from "effect"

/**
 * Events written in the same transaction as the change they describe, for delivery later. An
 * event is dispatched once: a dispatcher claims undispatched events, hands them on, and marks them
 * dispatched through the last one, all in one transaction.
 */
export class Outbox extends Context.Tag("roster/Outbox")<Outbox, {
  readonly record: (events: ReadonlyArray<DomainEvent>) => Effect.Effect<void>
  /** The organization's recorded events, oldest first. */
  readonly recorded: (organizationId: OrganizationId) => Effect.Effect<ReadonlyArray<DomainEvent>>
  /** The organization's recorded events about one subscriber (their `data.subscriber.id`), oldest first. */
  readonly recordedAbout: (organizationId: OrganizationId, subscriberId: SubscriberId) => Effect.Effect<ReadonlyArray<DomainEvent>>
  /**
   * Up to `limit` of the organization's events about one subscriber, newest (last recorded) first.
   * With `before`, those recorded before that event; none when it is not one of the subscriber's
   * events that are kept (pruned meanwhile, or never theirs).
   */
  readonly recordedAboutNewestFirst: (
    organizationId: OrganizationId,
    subscriberId: SubscriberId,
    page: { readonly before?: EventId | undefined; readonly limit: number }
  ) => Effect.Effect<ReadonlyArray<DomainEvent>>
  /** The organization's events among `ids`, in the order they were recorded; those of other organizations are left out. */
  readonly findByIds: (organizationId: OrganizationId, ids: ReadonlyArray<EventId>) => Effect.Effect<ReadonlyArray<DomainEvent>>
  /**
   * Up to `limit` of the organization's `subscriber.updated` events that moved a subscriber's
   * status (`data.changed` holds `"status"`) to one of `statuses` (`data.subscriber.status`),
   * newest first. With `before`, those recorded before that event; none when it is not one of
   * these events of the organization.
   */
  readonly statusMovesNewestFirst: (
    organizationId: OrganizationId,
    statuses: ReadonlyArray<SubscriberStatus>,
    page: { readonly before?: EventId | undefined; readonly limit: number }
  ) => Effect.Effect<ReadonlyArray<DomainEvent>>
  /**
   * Strips the events about a subscriber of everything but their id (`data.subscriber` becomes
   * `{id}`, and a note about them `{id}`), so that an erased subscriber's address and details
   * stay nowhere; how many changed.
   */
  readonly forgetSubscriber: (organizationId: OrganizationId, subscriberId: SubscriberId) => Effect.Effect<number>
  /**
   * Up to `limit` undispatched events, in dispatch order: transaction by transaction as they
   * committed, each transaction's events in the order recorded. An event waits while the
   * transaction that recorded it, or one older than it, is still open. Inside a transaction the
   * claim holds the outbox until the transaction ends: another dispatcher's claim answers none
   * meanwhile rather than wait.
   */
  readonly claimUndispatched: (limit: number) => Effect.Effect<ReadonlyArray<DomainEvent>>
  /** Marks the claimed events up to and including `last` dispatched at `at`, in the claim's transaction. */
  readonly markDispatchedThrough: (last: EventId, at: Date) => Effect.Effect<void>
  /**
   * Deletes up to `limit` dispatched events that occurred before `before` and that no webhook
   * delivery refers to any more; how many it deleted.
   */
  readonly pruneDispatched: (before: Date, limit: number) => Effect.Effect<number>
}>() {}
