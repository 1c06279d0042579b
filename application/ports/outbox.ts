import type { DomainEvent, OrganizationId } from "@roster/domain"
import { Context, type Effect } from "effect"

/** Events written in the same transaction as the change they describe, for delivery later. */
export class Outbox extends Context.Tag("roster/Outbox")<Outbox, {
  readonly record: (events: ReadonlyArray<DomainEvent>) => Effect.Effect<void>
  /** The organization's recorded events, oldest first. */
  readonly recorded: (organizationId: OrganizationId) => Effect.Effect<ReadonlyArray<DomainEvent>>
}>() {}
