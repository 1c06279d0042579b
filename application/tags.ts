import {
  DomainEvent,
  EventId,
  InvalidInput,
  type Metadata,
  type OrganizationId,
  ResourceNotFound,
  sameMetadata,
  type SortOrder,
  Slug,
  slugify,
  slugProblem,
  Tag,
  TagId,
  tagNameKey
} from "@roster/domain"
import { Effect, Option } from "effect"
import { now } from "./clock.js"
import { tagSubscriptionData } from "./event-payloads.js"
import { cutPage, positionFromCursor } from "./keyset.js"
import { requireOwned } from "./ownership.js"
import { Ids } from "./ports/ids.js"
import { Outbox } from "./ports/outbox.js"
import { TagAssignments } from "./ports/tag-assignments.js"
import { TagRepository, type TagSort } from "./ports/tag-repository.js"
import { UnitOfWork } from "./ports/unit-of-work.js"
import { authorize, type Principal } from "./principal.js"

export interface NewTag {
  readonly name: string
  readonly slug?: string | undefined
  readonly description?: string | null | undefined
  readonly metadata?: Metadata | undefined
}

export interface TagChanges {
  readonly name?: string | undefined
  readonly description?: string | null | undefined
  readonly metadata?: Metadata | undefined
}

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
    const tags = yield* TagRepository
    const assignments = yield* TagAssignments
    const unitOfWork = yield* UnitOfWork
    const outbox = yield* Outbox
    const ids = yield* Ids

    const owned = (organizationId: OrganizationId, id: TagId) =>
      requireOwned("tag", id, tags.findById(organizationId, id), tags.organizationOf(id))

    /** The slug given, or one made from the name. */
    const slugFor = (input: NewTag) => {
      const candidate = input.slug ?? slugify(input.name)
      const problem = slugProblem(candidate)
      if (problem === undefined) return Effect.succeed(Slug.make(candidate))
      return Effect.fail(
        input.slug === undefined
          ? new InvalidInput({ field: "slug", problem: "cannot be made from the name; give one" })
          : new InvalidInput({ field: "slug", problem })
      )
    }

    const create = Effect.fn("Tags.create")(function*(principal: Principal, input: NewTag) {
      yield* authorize(principal, "tags:write")
      const at = yield* now
      const tag = new Tag({
        id: TagId.make(yield* ids.next),
        organizationId: principal.organization.id,
        name: input.name,
        slug: yield* slugFor(input),
        description: input.description ?? null,
        metadata: input.metadata ?? {},
        subscriberCount: 0,
        createdAt: at,
        updatedAt: at
      })
      yield* tags.insert(tag)
      return tag
    })

    const get = Effect.fn("Tags.get")(function*(principal: Principal, id: TagId) {
      yield* authorize(principal, "tags:read")
      return yield* owned(principal.organization.id, id)
    })

    const getByName = Effect.fn("Tags.getByName")(function*(principal: Principal, name: string) {
      yield* authorize(principal, "tags:read")
      const found = yield* tags.findByName(principal.organization.id, name)
      if (Option.isNone(found)) return yield* new ResourceNotFound({ resource: "tag", id: name })
      return found.value
    })

    const list = Effect.fn("Tags.list")(function*(principal: Principal, request: TagListRequest) {
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

    const update = Effect.fn("Tags.update")(function*(principal: Principal, id: TagId, changes: TagChanges) {
      yield* authorize(principal, "tags:write")
      const organizationId = principal.organization.id
      return yield* unitOfWork.transaction(Effect.gen(function*() {
        const current = yield* owned(organizationId, id)
        const next = {
          name: changes.name ?? current.name,
          description: changes.description === undefined ? current.description : changes.description,
          metadata: changes.metadata ?? current.metadata
        }
        const unchanged = next.name === current.name && next.description === current.description &&
          sameMetadata(next.metadata, current.metadata)
        if (unchanged) return current
        const tag = new Tag({ ...current, ...next, updatedAt: yield* now })
        yield* tags.update(tag)
        return tag
      }))
    })

    /** Deletes the tag; every subscriber that carried it gets a `tag.unsubscribed` event. */
    const remove = Effect.fn("Tags.remove")(function*(principal: Principal, id: TagId) {
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

    return { create, get, getByName, list, update, remove } as const
  })
}) {}
