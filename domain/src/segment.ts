import { Schema } from "effect"
import { OrganizationId, SegmentId } from "./ids.js"
import { SegmentFilter } from "./segment-filter.js"
import { isStorableText, longerThan, UNSTORABLE_TEXT } from "./text.js"

export const MAX_SEGMENT_NAME_LENGTH = 200
export const MAX_SEGMENT_DESCRIPTION_LENGTH = 1000

/** A segment's name, for people: one line, trimmed, 1 to 200 characters. */
export const SegmentName = Schema.Trim.pipe(
  Schema.filter((s) => {
    if (s.length === 0) return "must not be empty"
    if (longerThan(s, MAX_SEGMENT_NAME_LENGTH)) return `must be at most ${MAX_SEGMENT_NAME_LENGTH} characters`
    if (/\p{Cc}/u.test(s)) return "must be one line without control characters"
    if (!isStorableText(s)) return UNSTORABLE_TEXT
    return true
  }, { identifier: "SegmentName", examples: ["Pro customers who opened lately"] })
)

export const SegmentDescription = Schema.String.pipe(
  Schema.filter((s) => {
    if (longerThan(s, MAX_SEGMENT_DESCRIPTION_LENGTH)) return `must be at most ${MAX_SEGMENT_DESCRIPTION_LENGTH} characters`
    if (!isStorableText(s)) return UNSTORABLE_TEXT
    return true
  }, { identifier: "SegmentDescription" })
)

/**
 * A segment: a saved filter with a name. Who belongs to it is worked out each time it is read
 * (a preview, a count, a send), never stored.
 */
export class Segment extends Schema.Class<Segment>("Segment")({
  id: SegmentId,
  organizationId: OrganizationId,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  filter: Schema.typeSchema(SegmentFilter),
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
}) {}
