import type {
  DomainEvent,
  EmailTrigger,
  FiringStatus,
  MessageId,
  OrganizationId,
  SegmentId,
  SubscriberId,
  TriggerId
} from "@roster/domain"
import { Context, type Effect, type Option } from "effect"

/** A firing whose time has come, with its trigger as it is now. */
export interface DueFiring {
  readonly id: string
  readonly trigger: EmailTrigger
  readonly subscriberId: SubscriberId
}

/**
 * Email triggers, and the firings their events make. Firings are recorded from the outbox inside
 * the transaction that takes its events, once per trigger and subscriber.
 */
export class TriggerRepository extends Context.Tag("roster/TriggerRepository")<TriggerRepository, {
  readonly insert: (trigger: EmailTrigger) => Effect.Effect<void>
  readonly update: (trigger: EmailTrigger) => Effect.Effect<void>
  readonly delete: (organizationId: OrganizationId, id: TriggerId) => Effect.Effect<boolean>
  readonly findById: (organizationId: OrganizationId, id: TriggerId) => Effect.Effect<Option.Option<EmailTrigger>>
  /** Oldest first: `limit` after `after`, or past `offset`. */
  readonly list: (query: {
    readonly organizationId: OrganizationId
    readonly limit: number
    readonly after?: { readonly value: string | number; readonly id: string } | undefined
    readonly offset?: number | undefined
  }) => Effect.Effect<ReadonlyArray<EmailTrigger>>
  readonly count: (organizationId: OrganizationId) => Effect.Effect<number>
  /** The organization's triggers whose condition is the segment, oldest first. */
  readonly usingSegment: (organizationId: OrganizationId, segmentId: SegmentId) => Effect.Effect<ReadonlyArray<TriggerId>>
  /**
   * Records a firing, due after its trigger's delay, for every active trigger that `events` fire
   * (and that has not fired for the subscriber before); how many it recorded.
   */
  readonly recordFirings: (events: ReadonlyArray<DomainEvent>, at: Date) => Effect.Effect<number>
  /**
   * Up to `limit` pending firings due at `now` of active triggers, oldest due first, held until
   * `now + leaseMs` so that no other worker takes them meanwhile.
   */
  readonly claimDue: (now: Date, limit: number, leaseMs: number) => Effect.Effect<ReadonlyArray<DueFiring>>
  /** What came of a firing: the email queued (`sent`), or why none was. */
  readonly settle: (
    id: string,
    outcome: { readonly status: Exclude<FiringStatus, "pending">; readonly messageId: MessageId | null; readonly detail: string | null },
    at: Date
  ) => Effect.Effect<void>
  /** A trigger's firings by status, for its figures. */
  readonly firingCounts: (ids: ReadonlyArray<TriggerId>) => Effect.Effect<ReadonlyMap<TriggerId, Partial<Record<FiringStatus, number>>>>
}>() {}
