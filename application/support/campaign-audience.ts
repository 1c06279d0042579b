import { type Campaign, InvalidInput, reason } from "@roster/domain"
import { Effect, Option } from "effect"
import type { AudienceSelection } from "../ports/campaign-repository.js"
import { SegmentRepository } from "../ports/segment-repository.js"

/**
 * Who a campaign's audience is at `at`, as the store selects it: its tags, or the filter of its
 * segment as the segment is now. The count of recipients and the send both take it from here, so
 * that they read one condition. A segment deleted since (or never the organization's) is a 400
 * naming `audience.segment_id`.
 */
export const makeAudienceOf = Effect.map(SegmentRepository, (segments) =>
  Effect.fnUntraced(function*(campaign: Pick<Campaign, "organizationId" | "audience">, at: Date) {
    const { excludeTagIds, segmentId, tagIds } = campaign.audience
    if (segmentId === null) return { tagIds, excludeTagIds, filter: null, at } satisfies AudienceSelection
    const segment = yield* segments.findById(campaign.organizationId, segmentId)
    if (Option.isNone(segment)) {
      return yield* new InvalidInput({ field: "audience.segment_id", reason: reason("noSegmentWithId", { id: segmentId }) })
    }
    return { tagIds, excludeTagIds, filter: segment.value.filter, at } satisfies AudienceSelection
  }))
