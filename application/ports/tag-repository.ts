import type { Limit, OrganizationId, SortBy, SortOrder, Tag, TagAlreadyExists, TagId } from "@roster/domain"
import { Context, type Effect, type Option } from "effect"
import type { KeysetPosition } from "./subscriber-repository.js"

/** What `insertMany` did with one tag. */
export type TagInsertOutcome = "stored" | "full" | "name-taken" | "slug-taken"

export type TagSort = "name" | "created_at" | "subscriber_count"

export interface TagListQuery {
  readonly sort: TagSort
  readonly order: SortOrder
  readonly after?: KeysetPosition | undefined
  readonly limit: number
}

/** The fields a numbered page of tags may be sorted by. */
export const tagPageSorts = ["name", "created_at", "subscriber_count", "category"] as const
export type TagPageSort = typeof tagPageSorts[number]

export interface TagFilter {
  /** Only tags of exactly this category. */
  readonly category?: string | undefined
}

/** A numbered page: `limit` rows from `offset` on, in the order of the sort keys and then the id. */
export interface TagPageQuery {
  readonly filter: TagFilter
  readonly sort: ReadonlyArray<SortBy<TagPageSort>>
  readonly offset: number
  readonly limit: number
}

/**
 * Tags, always within one organization. Names and slugs are unique per organization (names by
 * their case-insensitive key). Sort values: `name` compares the name key in code-point order,
 * `created_at` as an instant (ISO string), `subscriber_count` as a number; ties break on the id.
 * Numbered pages (`listPage`) compare the same values, and `category` in code-point order with
 * uncategorized tags after every category (first when descending); after the sort keys, ties
 * break on the id in the direction of the last key (ascending when there is none).
 * `subscriberCount` is kept by {@link TagAssignments}; `insert` and `update` leave it alone.
 */
export class TagRepository extends Context.Tag("roster/TagRepository")<TagRepository, {
  /**
   * Stores a new tag if its organization's tags stay `withinLimit` of `max`; whether it did (false:
   * the organization holds `max` tags already, nothing was stored). Concurrent inserts never pass
   * the limit together. A taken name or slug fails, whatever the count.
   */
  readonly insert: (tag: Tag, max: Limit) => Effect.Effect<boolean, TagAlreadyExists>
  /**
   * Stores new tags of one organization at once, their names and slugs distinct among them: a tag
   * whose name or slug another tag of the organization holds is not stored (`name-taken`, or
   * `slug-taken` when only the slug is); of the others, as many as keep the organization's tags
   * `withinLimit` of `max` are stored, in the order given, and the rest are `full`. Concurrent
   * inserts never pass the limit together. What became of each tag, in the order given.
   */
  readonly insertMany: (tags: ReadonlyArray<Tag>, max: Limit) => Effect.Effect<ReadonlyArray<TagInsertOutcome>>
  readonly update: (tag: Tag) => Effect.Effect<void, TagAlreadyExists>
  /** Deletes the tag and every attachment of it; whether a row was deleted. */
  readonly delete: (organizationId: OrganizationId, id: TagId) => Effect.Effect<boolean>
  readonly findById: (organizationId: OrganizationId, id: TagId) => Effect.Effect<Option.Option<Tag>>
  /** Finds by name, case-insensitively. */
  readonly findByName: (organizationId: OrganizationId, name: string) => Effect.Effect<Option.Option<Tag>>
  /** The tags of this organization whose names are among `names` (by name key), in no particular order. */
  readonly findByNames: (organizationId: OrganizationId, names: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Tag>>
  /** The tags of this organization among `ids`, in no particular order. */
  readonly findByIds: (organizationId: OrganizationId, ids: ReadonlyArray<TagId>) => Effect.Effect<ReadonlyArray<Tag>>
  readonly organizationOf: (id: TagId) => Effect.Effect<Option.Option<OrganizationId>>
  readonly list: (organizationId: OrganizationId, query: TagListQuery) => Effect.Effect<ReadonlyArray<Tag>>
  /** The rows of one numbered page; past the last row, none. */
  readonly listPage: (organizationId: OrganizationId, query: TagPageQuery) => Effect.Effect<ReadonlyArray<Tag>>
  /** How many tags the organization has, or how many match `filter`. */
  readonly count: (organizationId: OrganizationId, filter?: TagFilter) => Effect.Effect<number>
}>() {}
