import type { Limit, OrganizationId, SubscriberId, Tag, TagId, TagSubscription } from "@roster/domain"
import { Context, type Effect, type Option } from "effect"

/** A tag the preference center offers, with when the subscriber took it (`null`: they do not carry it). */
export interface OfferedTag {
  readonly tag: Tag
  readonly subscribedAt: Date | null
}

/**
 * Which subscriber carries which tag, and since when. Keeps each tag's `subscriberCount` in step
 * within the same transaction.
 */
export class TagAssignments extends Context.Tag("roster/TagAssignments")<TagAssignments, {
  /**
   * Attaches the tags (all of this organization) and returns those that were not attached before,
   * if the subscriber may carry them under `max` (`mayCarry` of domain/limits.ts: new ones are
   * counted, and a subscriber already past `max` keeps what they carry but takes no more). None,
   * with nothing attached, when they may not. Run it while holding the subscriber (read for
   * update) so that concurrent attachments never pass the limit together.
   */
  readonly attach: (
    organizationId: OrganizationId,
    subscriberId: SubscriberId,
    tagIds: ReadonlyArray<TagId>,
    at: Date,
    max: Limit
  ) => Effect.Effect<Option.Option<ReadonlyArray<TagId>>>
  /** Whether the tag was attached. */
  readonly detach: (organizationId: OrganizationId, subscriberId: SubscriberId, tagId: TagId) => Effect.Effect<boolean>
  /** Detaches every tag of a subscriber; the tags that were attached. */
  readonly detachAllFromSubscriber: (
    organizationId: OrganizationId,
    subscriberId: SubscriberId
  ) => Effect.Effect<ReadonlyArray<TagId>>
  /** Detaches a tag from every subscriber; the subscribers that carried it. */
  readonly detachAllFromTag: (
    organizationId: OrganizationId,
    tagId: TagId
  ) => Effect.Effect<ReadonlyArray<{ readonly id: SubscriberId; readonly email: string }>>
  /**
   * The organization's public tags in the order of their names (name key, then id), at most
   * `limit`, each with when the subscriber took it; a subscriber of another organization carries
   * none of them. What the preference center shows, in one read.
   */
  readonly offeredTo: (
    organizationId: OrganizationId,
    subscriberId: SubscriberId,
    limit: number
  ) => Effect.Effect<ReadonlyArray<OfferedTag>>
  /** The tags of each subscriber, oldest attachment first; subscribers without tags are absent. */
  readonly tagsOf: (
    organizationId: OrganizationId,
    subscriberIds: ReadonlyArray<SubscriberId>
  ) => Effect.Effect<ReadonlyMap<SubscriberId, ReadonlyArray<TagSubscription>>>
}>() {}
