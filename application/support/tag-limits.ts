import {
  type Limit,
  MAX_TAGS_PER_ORGANIZATION,
  MAX_TAGS_PER_SUBSCRIBER,
  type OrganizationId,
  type SubscriberId,
  type Tag,
  type TagAlreadyExists,
  type TagId,
  TagLimitReached
} from "@roster/domain"
import { type Context, Effect, Option } from "effect"
import type { TagAssignments } from "../ports/tag-assignments.js"
import type { TagRepository } from "../ports/tag-repository.js"

/**
 * The tag limits of domain/limits.ts as the use cases meet them: checked by the store in the
 * write that would pass them, and answered with the field of the request that asked for too much.
 */

/** Stores a new tag, unless its organization holds as many tags as it may. */
export const insertTag = (
  tags: Context.Tag.Service<typeof TagRepository>,
  tag: Tag,
  field: string
): Effect.Effect<Tag, TagAlreadyExists | TagLimitReached> =>
  Effect.flatMap(tags.insert(tag, MAX_TAGS_PER_ORGANIZATION), (stored) =>
    stored
      ? Effect.succeed(tag)
      : Effect.fail(new TagLimitReached({ limit: "tags_per_organization", max: MAX_TAGS_PER_ORGANIZATION, field })))

/** A subscriber asked to carry more tags than they may. */
export const tooManyTagsFor = (field: string) =>
  new TagLimitReached({ limit: "tags_per_subscriber", max: MAX_TAGS_PER_SUBSCRIBER, field })

/** Whether `count` tags are more than a subscriber may carry at all: refused before anything is read. */
export const beyondSubscriberLimit = (count: number, max: Limit = MAX_TAGS_PER_SUBSCRIBER): boolean =>
  max !== null && count > max

/**
 * Attaches tags to a subscriber (held for update by the caller) unless they would then carry more
 * than they may; the tags newly attached.
 */
export const attachWithinLimit = (
  assignments: Context.Tag.Service<typeof TagAssignments>,
  organizationId: OrganizationId,
  subscriberId: SubscriberId,
  tagIds: ReadonlyArray<TagId>,
  at: Date,
  field: string
): Effect.Effect<ReadonlyArray<TagId>, TagLimitReached> =>
  Effect.flatMap(
    assignments.attach(organizationId, subscriberId, tagIds, at, MAX_TAGS_PER_SUBSCRIBER),
    Option.match({ onNone: () => Effect.fail(tooManyTagsFor(field)), onSome: Effect.succeed })
  )
