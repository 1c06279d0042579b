import type { OrganizationId, SubscriberId, TagId, TagSubscription } from "@roster/domain"
import { Context, type Effect } from "effect"

/**
 * Which subscriber carries which tag, and since when. Keeps each tag's `subscriberCount` in step
 * within the same transaction.
 */
export class TagAssignments extends Context.Tag("roster/TagAssignments")<TagAssignments, {
  /** Attaches the tags (all of this organization) and returns those that were not attached before. */
  readonly attach: (
    organizationId: OrganizationId,
    subscriberId: SubscriberId,
    tagIds: ReadonlyArray<TagId>,
    at: Date
  ) => Effect.Effect<ReadonlyArray<TagId>>
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
  /** The tags of each subscriber, oldest attachment first; subscribers without tags are absent. */
  readonly tagsOf: (
    organizationId: OrganizationId,
    subscriberIds: ReadonlyArray<SubscriberId>
  ) => Effect.Effect<ReadonlyMap<SubscriberId, ReadonlyArray<TagSubscription>>>
}>() {}
