import {
  type FilterNode,
  InvalidInput,
  reason,
  type NumberedPage,
  type OrganizationId,
  Segment,
  type SegmentFilter,
  SegmentId,
  SegmentInUse,
  type TagId
} from "@roster/domain"
import { Effect } from "effect"
import { CampaignRepository } from "./ports/campaign-repository.js"
import { Ids } from "./ports/ids.js"
import { SegmentAudience } from "./ports/segment-audience.js"
import { SegmentRepository } from "./ports/segment-repository.js"
import { SequenceRepository } from "./ports/sequence-repository.js"
import { TagAssignments } from "./ports/tag-assignments.js"
import { TagRepository } from "./ports/tag-repository.js"
import { TriggerRepository } from "./ports/trigger-repository.js"
import { now } from "./support/clock.js"
import { cutPage, positionFromCursor } from "./support/keyset.js"
import { operations } from "./support/operation.js"
import { requireOwned } from "./support/ownership.js"
import { numberedPage, type PageNumberRequest, pageWindow } from "./support/page-numbers.js"
import { authorize, type Principal } from "./support/principal.js"
import type { SubscriberView } from "./subscribers.js"

export interface NewSegment {
  readonly name: string
  readonly description?: string | null | undefined
  readonly filter: SegmentFilter
}

/** Fields left out stay as they are; a `null` description removes it. */
export interface SegmentChanges {
  readonly name?: string | undefined
  readonly description?: string | null | undefined
  readonly filter?: SegmentFilter | undefined
}

/** Which page of the matching subscribers to show: after a cursor, or a numbered page. */
export type PreviewRequest =
  | { readonly limit: number; readonly cursor?: string | undefined }
  | PageNumberRequest

/** How many subscribers match, and one page of them (by id), each with their tags. */
export interface SegmentPreview {
  readonly total: number
  readonly items: ReadonlyArray<SubscriberView>
  /** The cursor of the next page, for a preview read by cursor; `null` on the last page. */
  readonly nextCursor: string | null
  /** The page's place, for a preview read by page number. */
  readonly page?: Omit<NumberedPage<SubscriberView>, "items" | "total"> | undefined
}

const LIST_SORT = "created_at"
const PREVIEW_SORT = "id"

/** Every tag id the filter names, with where it stands in a request body (`filter.all[0].value[1]`). */
const tagIdPlaces = (node: FilterNode, at: string): ReadonlyArray<{ readonly id: string; readonly field: string }> => {
  if ("all" in node) return node.all.flatMap((n, i) => tagIdPlaces(n, `${at}.all[${i}]`))
  if ("any" in node) return node.any.flatMap((n, i) => tagIdPlaces(n, `${at}.any[${i}]`))
  if ("not" in node) return tagIdPlaces(node.not, `${at}.not`)
  return node.field === "tags" ? node.value.map((id, i) => ({ id, field: `${at}.value[${i}]` })) : []
}

/**
 * Segments: saved filters with a name. Who matches one is worked out when it is read, by one
 * compiled predicate in the database (the same rules evaluated in memory elsewhere); a preview
 * shows how many match and the first of them.
 */
export class Segments extends Effect.Service<Segments>()("roster/Segments", {
  effect: Effect.gen(function*() {
    const operation = yield* operations
    const segments = yield* SegmentRepository
    const audience = yield* SegmentAudience
    const tags = yield* TagRepository
    const assignments = yield* TagAssignments
    const campaigns = yield* CampaignRepository
    const triggers = yield* TriggerRepository
    const sequences = yield* SequenceRepository
    const ids = yield* Ids

    // Another organization's segment is not found either: nothing of it is told.
    const owned = (organizationId: OrganizationId, id: SegmentId) =>
      requireOwned("segment", id, segments.findById(organizationId, id), () => segments.organizationOf(id))

    /** Every tag a filter names must be one of the organization's; the first that is not is refused where it stands. */
    const checkTags = (organizationId: OrganizationId, filter: SegmentFilter) =>
      Effect.gen(function*() {
        const places = tagIdPlaces(filter, "filter")
        if (places.length === 0) return
        const found = yield* tags.findByIds(organizationId, [...new Set(places.map((p) => p.id))] as Array<TagId>)
        const known = new Set<string>(found.map((t) => t.id))
        const missing = places.find((p) => !known.has(p.id))
        if (missing !== undefined) {
          return yield* new InvalidInput({ field: missing.field, reason: reason("filterTagUnknown", { id: missing.id }) })
        }
      })

    const create = operation("Segments.create")(function*(principal: Principal, input: NewSegment) {
      yield* authorize(principal, "segments:write")
      const organizationId = principal.organization.id
      yield* checkTags(organizationId, input.filter)
      const at = yield* now
      const segment = new Segment({
        id: SegmentId.make(yield* ids.next),
        organizationId,
        name: input.name,
        description: input.description ?? null,
        filter: input.filter,
        createdAt: at,
        updatedAt: at
      })
      yield* segments.insert(segment)
      return segment
    })

    const get = operation("Segments.get")(function*(principal: Principal, id: SegmentId) {
      yield* authorize(principal, "segments:read")
      return yield* owned(principal.organization.id, id)
    })

    /** One page of the organization's segments, oldest first. */
    const list = operation("Segments.list")(function*(
      principal: Principal,
      query: { readonly limit: number; readonly cursor?: string | undefined }
    ) {
      yield* authorize(principal, "segments:read")
      const after = yield* positionFromCursor(query.cursor, LIST_SORT, "asc")
      const organizationId = principal.organization.id
      const [rows, total] = yield* Effect.all([
        segments.list({ organizationId, limit: query.limit + 1, after }),
        segments.count(organizationId)
      ], { concurrency: 2 })
      return { ...cutPage(rows, query.limit, LIST_SORT, "asc", (s) => s.createdAt.toISOString()), total }
    })

    const listPage = operation("Segments.listPage")(function*(principal: Principal, request: PageNumberRequest) {
      yield* authorize(principal, "segments:read")
      const window = yield* pageWindow(request, [], [])
      const organizationId = principal.organization.id
      const [items, total] = yield* Effect.all([
        segments.list({ organizationId, limit: window.limit, offset: window.offset }),
        segments.count(organizationId)
      ], { concurrency: 2 })
      return numberedPage(items, total, request)
    })

    const update = operation("Segments.update")(function*(principal: Principal, id: SegmentId, changes: SegmentChanges) {
      yield* authorize(principal, "segments:write")
      const organizationId = principal.organization.id
      const current = yield* owned(organizationId, id)
      if (changes.filter !== undefined) yield* checkTags(organizationId, changes.filter)
      const updated = new Segment({
        ...current,
        name: changes.name ?? current.name,
        description: changes.description === undefined ? current.description : changes.description,
        filter: changes.filter ?? current.filter,
        updatedAt: yield* now
      })
      yield* segments.update(updated)
      return updated
    })

    /**
     * Deletes a segment no one still reads: a campaign whose audience it is and is not fixed yet, or
     * a trigger whose condition it is, keeps it (409 naming them). A sent campaign's audience was
     * fixed when it started, so its segment may go.
     */
    const remove = operation("Segments.remove")(function*(principal: Principal, id: SegmentId) {
      yield* authorize(principal, "segments:write")
      const organizationId = principal.organization.id
      yield* owned(organizationId, id)
      const [campaignIds, triggerIds, ofOrganization] = yield* Effect.all([
        campaigns.usingSegment(organizationId, id),
        triggers.usingSegment(organizationId, id),
        sequences.list({ organizationId, limit: 100_000 })
      ], { concurrency: 3 })
      // An organization's sequences are few; their entries are read whole.
      const sequenceIds = ofOrganization
        .filter((s) => s.entry.event === "segment.entered" && s.entry.segmentId === id)
        .map((s) => s.id)
      if (campaignIds.length > 0 || triggerIds.length > 0 || sequenceIds.length > 0) {
        return yield* new SegmentInUse({ id, campaignIds, triggerIds, sequenceIds })
      }
      yield* segments.delete(organizationId, id)
    })

    /** The count and one page of who matches `filter` now; the page's subscribers with their tags. */
    const previewOf = (organizationId: OrganizationId, filter: SegmentFilter, request: PreviewRequest) =>
      Effect.gen(function*() {
        const at = yield* now
        const byNumber = "page" in request
        const window = byNumber ? yield* pageWindow(request, [], []) : undefined
        const after = byNumber ? undefined : yield* positionFromCursor(request.cursor, PREVIEW_SORT, "asc")
        const limit = byNumber ? request.perPage : request.limit
        const [rows, total] = yield* Effect.all([
          audience.page(organizationId, filter, at, {
            after: after?.id,
            offset: window?.offset,
            limit: byNumber ? limit : limit + 1
          }),
          audience.count(organizationId, filter, at)
        ], { concurrency: 2 })
        const cut = byNumber ? { items: rows, nextCursor: null } : cutPage(rows, limit, PREVIEW_SORT, "asc", (s) => s.id)
        const tagMap = yield* assignments.tagsOf(organizationId, cut.items.map((s) => s.id))
        const items = cut.items.map((subscriber): SubscriberView => ({ subscriber, tags: tagMap.get(subscriber.id) ?? [] }))
        const numbered = byNumber ? numberedPage(items, total, request) : undefined
        return {
          total,
          items,
          nextCursor: cut.nextCursor,
          page: numbered === undefined
            ? undefined
            : { page: numbered.page, perPage: numbered.perPage, totalPages: numbered.totalPages }
        } satisfies SegmentPreview
      })

    /** Who matches a saved segment now: how many, and one page of them. */
    const preview = operation("Segments.preview")(function*(principal: Principal, id: SegmentId, request: PreviewRequest) {
      yield* authorize(principal, "segments:read")
      yield* authorize(principal, "subscribers:read")
      const segment = yield* owned(principal.organization.id, id)
      return yield* previewOf(principal.organization.id, segment.filter, request)
    })

    /** Who would match a filter not saved: how many, and one page of them. */
    const previewFilter = operation("Segments.previewFilter")(
      function*(principal: Principal, filter: SegmentFilter, request: PreviewRequest) {
        yield* authorize(principal, "segments:read")
        yield* authorize(principal, "subscribers:read")
        yield* checkTags(principal.organization.id, filter)
        return yield* previewOf(principal.organization.id, filter, request)
      }
    )

    return { create, get, list, listPage, update, remove, preview, previewFilter } as const
  })
}) {}
