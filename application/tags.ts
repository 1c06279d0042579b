import {
  DEFAULT_TAG_VISIBILITY,
  DomainEvent,
  EventId,
  InvalidInput,
  type Metadata,
  type NumberedPage,
  type OrganizationId,
  ResourceNotFound,
  sameMetadata,
  type SortOrder,
  Slug,
  slugify,
  type Reason,
  reason,
  slugReason,
  Tag,
  tagCategoryReason,
  tagDescriptionReason,
  TagId,
  tagNameKey,
  tagNameReason,
  type TagVisibility
} from "@roster/domain"
import { Effect, Option } from "effect"
import { now } from "./support/clock.js"
import { tagSubscriptionData } from "./support/event-payloads.js"
import { cutPage, positionFromCursor } from "./support/keyset.js"
import { requireOwned } from "./support/ownership.js"
import { numberedPage, type PageNumberRequest, pageWindow } from "./support/page-numbers.js"
import { Ids } from "./ports/ids.js"
import { Outbox } from "./ports/outbox.js"
import { TagAssignments } from "./ports/tag-assignments.js"
import { type TagPageSort, tagPageSorts, TagRepository, type TagSort } from "./ports/tag-repository.js"
import { UnitOfWork } from "./ports/unit-of-work.js"
import { authorize, type Principal } from "./support/principal.js"
import { insertTag } from "./support/tag-limits.js"
import { makeTagNameResolver } from "./support/tag-names.js"
import { operations } from "./support/operation.js"

export interface NewTag {
  readonly name: string
  readonly slug?: string | undefined
  readonly description?: string | null | undefined
  /** How the tag is shown to people; a tag name's rules. */
  readonly displayName?: string | null | undefined
  /** The group the tag belongs to, 1 to 64 characters. */
  readonly category?: string | null | undefined
  /** Who sees it; public unless said otherwise. */
  readonly visibility?: TagVisibility | undefined
  readonly metadata?: Metadata | undefined
}

export interface TagChanges {
  readonly name?: string | undefined
  readonly description?: string | null | undefined
  /** `null` removes it; left out, it stays. */
  readonly displayName?: string | null | undefined
  /** `null` removes it; left out, it stays. */
  readonly category?: string | null | undefined
  /** Left out, it stays. */
  readonly visibility?: TagVisibility | undefined
  readonly metadata?: Metadata | undefined
}

/** A numbered page of tags, optionally of one category only. */
export interface TagPageRequest extends PageNumberRequest {
  readonly category?: string | undefined
}

export type TagNumberedPage = NumberedPage<Tag>

/** What becomes of names that name no tag: with `createMissing`, tags are made for them. */
export interface ResolveNamesOptions {
  readonly createMissing: boolean
  /** Where the names sit in the request, for errors: `tags` (the default) reports `tags[2]`. */
  readonly field?: string | undefined
}

/** Names first, as a tag list is usually read. */
const defaultPageSort = [{ field: "name", order: "asc" }] as const

/**
 * A display name or category as given: trimmed, `null` kept (it clears), checked against its rules.
 * Left out, it stays left out.
 */
const presentation = (
  value: string | null | undefined,
  field: string,
  reasonOf: (s: string) => Reason | undefined
): Effect.Effect<string | null | undefined, InvalidInput> => {
  if (value === undefined || value === null) return Effect.succeed(value)
  const trimmed = value.trim()
  const problem = reasonOf(trimmed)
  return problem === undefined ? Effect.succeed(trimmed) : Effect.fail(new InvalidInput({ field, reason: problem }))
}

/**
 * A name or description as given, checked against its rules: the wire forms' schemas check them
 * before, the dashboard's forms do not.
 */
const checked = (
  value: string | null | undefined,
  field: string,
  reasonOf: (s: string) => Reason | undefined
): Effect.Effect<void, InvalidInput> => {
  const problem = value === undefined || value === null ? undefined : reasonOf(value)
  return problem === undefined ? Effect.void : Effect.fail(new InvalidInput({ field, reason: problem }))
}

const displayNameOf = (value: string | null | undefined) => presentation(value, "display_name", tagNameReason)
const categoryOf = (value: string | null | undefined) => presentation(value, "category", tagCategoryReason)

export interface TagListRequest {
  readonly sort: TagSort
  readonly order: SortOrder
  readonly cursor?: string | undefined
  readonly limit: number
}

export interface TagPage {
  readonly items: ReadonlyArray<Tag>
  readonly total: number
  readonly nextCursor: string | null
}

const sortValue = (sort: TagSort) => (tag: Tag): string | number =>
  sort === "name" ? tagNameKey(tag.name) : sort === "created_at" ? tag.createdAt.toISOString() : tag.subscriberCount

export class Tags extends Effect.Service<Tags>()("roster/Tags", {
  effect: Effect.gen(function*() {
    const operation = yield* operations
    const tags = yield* TagRepository
    const assignments = yield* TagAssignments
    const unitOfWork = yield* UnitOfWork
    const outbox = yield* Outbox
    const ids = yield* Ids
    const resolveTagNames = makeTagNameResolver(tags, ids)

    const owned = (organizationId: OrganizationId, id: TagId) =>
      requireOwned("tag", id, tags.findById(organizationId, id), () => tags.organizationOf(id))

    /** The slug given, or one made from the name. */
    const slugFor = (input: NewTag) => {
      const candidate = input.slug ?? slugify(input.name)
      const problem = slugReason(candidate)
      if (problem === undefined) return Effect.succeed(Slug.make(candidate))
      return Effect.fail(
        input.slug === undefined
          ? new InvalidInput({ field: "slug", reason: reason("slugFromName") })
          : new InvalidInput({ field: "slug", reason: problem })
      )
    }

    const create = operation("Tags.create")(function*(principal: Principal, input: NewTag) {
      yield* authorize(principal, "tags:write")
      yield* checked(input.name, "name", tagNameReason)
      yield* checked(input.description, "description", tagDescriptionReason)
      const displayName = yield* displayNameOf(input.displayName)
      const category = yield* categoryOf(input.category)
      const at = yield* now
      const tag = new Tag({
        id: TagId.make(yield* ids.next),
        organizationId: principal.organization.id,
        name: input.name,
        slug: yield* slugFor(input),
        description: input.description ?? null,
        displayName: displayName ?? null,
        category: category ?? null,
        visibility: input.visibility ?? DEFAULT_TAG_VISIBILITY,
        metadata: input.metadata ?? {},
        subscriberCount: 0,
        createdAt: at,
        updatedAt: at
      })
      return yield* insertTag(tags, tag, "name")
    })

    const get = operation("Tags.get")(function*(principal: Principal, id: TagId) {
      yield* authorize(principal, "tags:read")
      return yield* owned(principal.organization.id, id)
    })

    const getByName = operation("Tags.getByName")(function*(principal: Principal, name: string) {
      yield* authorize(principal, "tags:read")
      const found = yield* tags.findByName(principal.organization.id, name)
      if (Option.isNone(found)) return yield* new ResourceNotFound({ resource: "tag", id: name })
      return found.value
    })

    const list = operation("Tags.list")(function*(principal: Principal, request: TagListRequest) {
      yield* authorize(principal, "tags:read")
      const organizationId = principal.organization.id
      const after = yield* positionFromCursor(request.cursor, request.sort, request.order)
      const [rows, total] = yield* Effect.all([
        tags.list(organizationId, { sort: request.sort, order: request.order, after, limit: request.limit + 1 }),
        tags.count(organizationId)
      ], { concurrency: 2 })
      const page = cutPage(rows, request.limit, request.sort, request.order, sortValue(request.sort))
      return { items: page.items, total, nextCursor: page.nextCursor } satisfies TagPage
    })

    const update = operation("Tags.update")(function*(principal: Principal, id: TagId, changes: TagChanges) {
      yield* authorize(principal, "tags:write")
      const organizationId = principal.organization.id
      yield* checked(changes.name, "name", tagNameReason)
      yield* checked(changes.description, "description", tagDescriptionReason)
      const displayName = yield* displayNameOf(changes.displayName)
      const category = yield* categoryOf(changes.category)
      return yield* unitOfWork.transaction(Effect.gen(function*() {
        const current = yield* owned(organizationId, id)
        const next = {
          name: changes.name ?? current.name,
          description: changes.description === undefined ? current.description : changes.description,
          displayName: displayName === undefined ? current.displayName : displayName,
          category: category === undefined ? current.category : category,
          visibility: changes.visibility ?? current.visibility,
          metadata: changes.metadata ?? current.metadata
        }
        const unchanged = next.name === current.name && next.description === current.description &&
          next.displayName === current.displayName && next.category === current.category &&
          next.visibility === current.visibility && sameMetadata(next.metadata, current.metadata)
        if (unchanged) return current
        const tag = new Tag({ ...current, ...next, updatedAt: yield* now })
        yield* tags.update(tag)
        return tag
      }))
    })

    /** Deletes the tag; every subscriber that carried it gets a `tag.unsubscribed` event. */
    const remove = operation("Tags.remove")(function*(principal: Principal, id: TagId) {
      yield* authorize(principal, "tags:write")
      const organizationId = principal.organization.id
      yield* unitOfWork.transaction(Effect.gen(function*() {
        const tag = yield* owned(organizationId, id)
        const carriers = yield* assignments.detachAllFromTag(organizationId, id)
        yield* tags.delete(organizationId, id)
        const at = yield* now
        const events = yield* Effect.forEach(carriers, (subscriber) =>
          Effect.map(ids.next, (eventId) =>
            new DomainEvent({
              id: EventId.make(eventId),
              organizationId,
              type: "tag.unsubscribed",
              occurredAt: at,
              data: { ...tagSubscriptionData(subscriber, tag), reason: "tag_deleted" }
            })))
        yield* outbox.record(events)
      }))
    })

    /**
     * One numbered page of tags, by `name` unless sorted otherwise (`name`, `created_at`,
     * `subscriber_count`, `category`); ties always end on the id, so pages never overlap.
     */
    const listPage = operation("Tags.listPage")(function*(principal: Principal, request: TagPageRequest) {
      yield* authorize(principal, "tags:read")
      const organizationId = principal.organization.id
      const window = yield* pageWindow<TagPageSort>(request, tagPageSorts, defaultPageSort)
      const filter = { category: (yield* categoryOf(request.category)) ?? undefined }
      const [items, total] = yield* Effect.all([
        tags.listPage(organizationId, { filter, ...window }),
        tags.count(organizationId, filter)
      ], { concurrency: 2 })
      return numberedPage(items, total, request) satisfies TagNumberedPage
    })

    /**
     * The tags `names` name, in the order given and each once (names compare regardless of letter
     * case). With `createMissing` and the scope `tags:write`, a name no tag has becomes a new tag
     * (its slug made from the name, with a short suffix when that is taken or impossible);
     * otherwise it is refused, naming its place (`tags[2]`). Tags made here go with the
     * transaction around the call, if there is one.
     */
    const resolveNames = operation("Tags.resolveNames")(
      function*(principal: Principal, names: ReadonlyArray<string>, options: ResolveNamesOptions) {
        yield* authorize(principal, "tags:read")
        return yield* unitOfWork.transaction(
          resolveTagNames(principal, names, options.createMissing ? "create" : "refuse", options.field ?? "tags")
        )
      }
    )

    return { create, get, getByName, list, listPage, update, remove, resolveNames } as const
  })
}) {}
