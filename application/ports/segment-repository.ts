import type { OrganizationId, Segment, SegmentId } from "@roster/domain"
import { Context, type Effect, type Option } from "effect"
import type { KeysetPosition } from "./subscriber-repository.js"

/** One page of an organization's segments in creation order: `limit` rows after `after`, or past `offset` rows. */
export interface SegmentPageQuery {
  readonly organizationId: OrganizationId
  readonly limit: number
  readonly after?: KeysetPosition | undefined
  readonly offset?: number | undefined
}

/**
 * Segments, always within one organization: their names and filters, never who matches them
 * (that is {@link SegmentAudience}'s). Listed oldest first, by creation instant (ISO string) and id.
 */
export class SegmentRepository extends Context.Tag("roster/SegmentRepository")<SegmentRepository, {
  readonly insert: (segment: Segment) => Effect.Effect<void>
  /** Stores every field as given, within the segment's organization. */
  readonly update: (segment: Segment) => Effect.Effect<void>
  readonly findById: (organizationId: OrganizationId, id: SegmentId) => Effect.Effect<Option.Option<Segment>>
  /** Whose segment this is, if it exists. */
  readonly organizationOf: (id: SegmentId) => Effect.Effect<Option.Option<OrganizationId>>
  /** Oldest first; up to `limit` rows after the position or past the offset. */
  readonly list: (query: SegmentPageQuery) => Effect.Effect<ReadonlyArray<Segment>>
  readonly count: (organizationId: OrganizationId) => Effect.Effect<number>
  /** Deletes the segment; whether it existed in that organization. */
  readonly delete: (organizationId: OrganizationId, id: SegmentId) => Effect.Effect<boolean>
}>() {}
