import type { DomainEvent, EmailAlreadyExists, Limit, Subscriber } from "@roster/domain"
import { Context, type Effect } from "effect"

/**
 * The write that brings a new subscriber in, without tags: the subscriber, the events that record
 * it, and its place among the organization's subscribers, all of it or none, in as few steps as
 * the store allows (one statement on PostgreSQL, unless the organization is near its limit).
 * Inside a transaction it joins it.
 */
export class SubscriberIntake extends Context.Tag("roster/SubscriberIntake")<SubscriberIntake, {
  /**
   * Stores `subscriber` and `events` if the organization's subscriber count stays within `max`;
   * whether it did (false: nothing was stored). A taken email stores nothing and fails.
   */
  readonly admit: (
    subscriber: Subscriber,
    events: ReadonlyArray<DomainEvent>,
    max: Limit
  ) => Effect.Effect<boolean, EmailAlreadyExists>
}>() {}
