import { InvalidInput, type OrganizationId, reason, type SubscriberStatus } from "@roster/domain"
import { Effect, Option, Stream } from "effect"
import { type ExportedSubscriber, SubscriberRepository } from "./ports/subscriber-repository.js"
import { TagRepository } from "./ports/tag-repository.js"
import { operations } from "./support/operation.js"
import { authorize, type Principal } from "./support/principal.js"

export interface SubscriberExportRequest {
  readonly status?: SubscriberStatus | undefined
  /** Only subscribers with the tag of this name (regardless of letter case). */
  readonly tagName?: string | undefined
}

/** What an export holds: the metadata keys its rows use, how many rows, and the rows, a page at a time. */
export interface SubscriberExport {
  readonly metadataKeys: ReadonlyArray<string>
  /** The subscribers that match, counted as the export opens (those added meanwhile come on top). */
  readonly subscriberCount: number
  /** Pages of subscribers with their tags, oldest first; each is read when the one before was taken. */
  readonly pages: Stream.Stream<ReadonlyArray<ExportedSubscriber>>
}

/** Subscribers read about a page at a time: an export holds a page or two in memory, however many there are. */
export const EXPORT_PAGE_SIZE = 5000

/**
 * Every subscriber of an organization (or those of one status, or with one tag), for operators
 * who take them elsewhere. Pages run oldest first; the store streams them (in one statement where
 * it can), so that none is read twice.
 */
export class SubscriberExports extends Effect.Service<SubscriberExports>()("roster/SubscriberExports", {
  effect: Effect.gen(function*() {
    const operation = yield* operations
    const subscribers = yield* SubscriberRepository
    const tags = yield* TagRepository

    const open = operation("SubscriberExports.open")(function*(
      organizationId: OrganizationId,
      request: SubscriberExportRequest,
      pageSize: number = EXPORT_PAGE_SIZE
    ) {
      const tag = request.tagName === undefined ? Option.none() : yield* tags.findByName(organizationId, request.tagName)
      if (request.tagName !== undefined && Option.isNone(tag)) {
        return yield* new InvalidInput({ field: "tag", reason: reason("noTagNamed", { name: request.tagName }) })
      }
      const filter = { status: request.status, tagId: Option.getOrUndefined(tag)?.id }
      const [metadataKeys, subscriberCount] = yield* Effect.all([
        subscribers.metadataKeys(organizationId, filter),
        subscribers.count(organizationId, filter)
      ], { concurrency: 2 })
      return {
        metadataKeys,
        subscriberCount,
        pages: subscribers.exportAll(organizationId, { ...filter, metadataKeys, pageSize }).pipe(
          // The next page is read while this one is written out.
          Stream.buffer({ capacity: 1 })
        )
      } satisfies SubscriberExport
    })

    /** The export of the principal's organization, for someone who may read its subscribers (the dashboard). */
    const openFor = operation("SubscriberExports.openFor")(function*(principal: Principal, request: SubscriberExportRequest) {
      yield* authorize(principal, "subscribers:read")
      return yield* open(principal.organization.id, request)
    })

    return { open, openFor } as const
  })
}) {}
