import { Schema } from "effect"
import { OrganizationId, TagId } from "./ids.js"
import { Metadata } from "./metadata.js"
import { Slug } from "./slug.js"
import { isStorableText, UNSTORABLE_TEXT } from "./text.js"

export const MAX_TAG_NAME_LENGTH = 100
export const MAX_DESCRIPTION_LENGTH = 1000

const controlCharacters = /\p{Cc}/u

/** A tag's display name: trimmed, 1 to 100 characters, no control characters. */
export const TagName = Schema.Trim.pipe(
  Schema.filter((s) => {
    if (s.length === 0) return "must not be empty"
    if ([...s].length > MAX_TAG_NAME_LENGTH) return `must be at most ${MAX_TAG_NAME_LENGTH} characters`
    if (controlCharacters.test(s)) return "must not contain control characters"
    if (!isStorableText(s)) return UNSTORABLE_TEXT
    return undefined
  }, { identifier: "TagName", description: "1 to 100 characters", examples: ["Weekly digest"] })
)

export const TagDescription = Schema.String.pipe(
  Schema.filter((s) => {
    if ([...s].length > MAX_DESCRIPTION_LENGTH) return `must be at most ${MAX_DESCRIPTION_LENGTH} characters`
    if (!isStorableText(s)) return UNSTORABLE_TEXT
    return undefined
  }, {
    identifier: "TagDescription"
  })
)

/** Tag names are unique per organization regardless of letter case. */
export const tagNameKey = (name: string): string => name.trim().toLowerCase().normalize("NFC")

export class Tag extends Schema.Class<Tag>("Tag")({
  id: TagId,
  organizationId: OrganizationId,
  name: Schema.String,
  slug: Slug,
  description: Schema.NullOr(Schema.String),
  metadata: Metadata,
  subscriberCount: Schema.Number,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
}) {}

/** A tag as attached to one subscriber. */
export interface TagSubscription {
  readonly tag: Tag
  readonly subscribedAt: Date
}
