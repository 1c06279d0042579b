import type { OrganizationId, SortOrder, Tag, TagAlreadyExists, TagId } from "@roster/domain"
import { Context, type Effect, type Option } from "effect"
import type { KeysetPosition } from "./subscriber-repository.js"

export type TagSort = "name" | "created_at" | "subscriber_count"

export interface TagListQuery {
  readonly sort: TagSort
  readonly order: SortOrder
  readonly after?: KeysetPosition | undefined
  readonly limit: number
}

/**
 * Tags, always within one organization. Names and slugs are unique per organization (names by
 * their case-insensitive key). Sort values: `name` compares the name key in code-point order,
 * `created_at` as an instant (ISO string), `subscriber_count` as a number; ties break on the id.
 * `subscriberCount` is kept by {@link TagAssignments}; `insert` and `update` leave it alone.
 */
export class TagRepository extends Context.Tag("roster/TagRepository")<TagRepository, {
  readonly insert: (tag: Tag) => Effect.Effect<void, TagAlreadyExists>
  readonly update: (tag: Tag) => Effect.Effect<void, TagAlreadyExists>
  /** Deletes the tag and every attachment of it; whether a row was deleted. */
  readonly delete: (organizationId: OrganizationId, id: TagId) => Effect.Effect<boolean>
  readonly findById: (organizationId: OrganizationId, id: TagId) => Effect.Effect<Option.Option<Tag>>
  /** Finds by name, case-insensitively. */
  readonly findByName: (organizationId: OrganizationId, name: string) => Effect.Effect<Option.Option<Tag>>
  /** The tags of this organization among `ids`, in no particular order. */
  readonly findByIds: (organizationId: OrganizationId, ids: ReadonlyArray<TagId>) => Effect.Effect<ReadonlyArray<Tag>>
  readonly organizationOf: (id: TagId) => Effect.Effect<Option.Option<OrganizationId>>
  readonly list: (organizationId: OrganizationId, query: TagListQuery) => Effect.Effect<ReadonlyArray<Tag>>
  readonly count: (organizationId: OrganizationId) => Effect.Effect<number>
}>() {}
