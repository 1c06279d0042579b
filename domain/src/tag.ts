import { Schema } from "effect"
import { OrganizationId, TagId } from "./ids.js"
import { Metadata } from "./metadata.js"
import { Slug } from "./slug.js"
import { type PlainReason, type Reason, reason, reasonTextOf } from "./reason.js"
import { isStorableText, longerThan } from "./text.js"

export const MAX_TAG_NAME_LENGTH = 100
export const MAX_DESCRIPTION_LENGTH = 1000
export const MAX_CATEGORY_LENGTH = 64

const controlCharacters = /\p{Cc}/u

/** Why `s` (already trimmed) cannot be a tag's name or display name, if it cannot. */
export const tagNameReason = (s: string): PlainReason | undefined => {
  if (s.length === 0) return reason("empty")
  if (longerThan(s, MAX_TAG_NAME_LENGTH)) return reason("tooLong", { max: MAX_TAG_NAME_LENGTH })
  if (controlCharacters.test(s)) return reason("controlCharacters")
  if (!isStorableText(s)) return reason("unstorable")
  return undefined
}

/** {@link tagNameReason} in English. */
export const tagNameProblem = (s: string): string | undefined => reasonTextOf(tagNameReason(s))

/** A tag's name: trimmed, 1 to 100 characters, no control characters. */
export const TagName = Schema.Trim.pipe(
  Schema.filter(tagNameProblem, { identifier: "TagName", description: "1 to 100 characters", examples: ["Weekly digest"] })
)

/** How a tag is shown to people where its name is too terse; the same rules as a name. */
export const TagDisplayName = Schema.Trim.pipe(
  Schema.filter(tagNameProblem, {
    identifier: "TagDisplayName",
    description: "1 to 100 characters",
    examples: ["The weekly digest"]
  })
)

/** Why `s` (already trimmed) cannot be a tag's category, if it cannot. */
export const tagCategoryReason = (s: string): Reason | undefined => {
  if (s.length === 0) return reason("empty")
  if (longerThan(s, MAX_CATEGORY_LENGTH)) return reason("tooLong", { max: MAX_CATEGORY_LENGTH })
  if (!isStorableText(s)) return reason("unstorable")
  return undefined
}

/** {@link tagCategoryReason} in English. */
export const tagCategoryProblem = (s: string): string | undefined => reasonTextOf(tagCategoryReason(s))

/** Why `s` cannot be a tag's description, if it cannot. */
export const tagDescriptionReason = (s: string): Reason | undefined => {
  if (longerThan(s, MAX_DESCRIPTION_LENGTH)) return reason("tooLong", { max: MAX_DESCRIPTION_LENGTH })
  if (!isStorableText(s)) return reason("unstorable")
  return undefined
}

/**
 * The group a tag belongs to (`interests`, `source`): trimmed, 1 to 64 characters. Categories
 * compare exactly as written, letter case included.
 */
export const TagCategory = Schema.Trim.pipe(
  Schema.filter(tagCategoryProblem, {
    identifier: "TagCategory",
    description: "1 to 64 characters",
    examples: ["interests"]
  })
)

export const TagDescription = Schema.String.pipe(
  Schema.filter((s) => reasonTextOf(tagDescriptionReason(s)), {
    identifier: "TagDescription"
  })
)

/**
 * Who sees a tag: `public` tags are offered in the preference center, where subscribers take and
 * drop them themselves; `private` tags are seen only through the API and by the organization's
 * people, and the preference center neither shows them nor lets a subscriber change them.
 */
export const TagVisibility = Schema.Literal("public", "private")
export type TagVisibility = typeof TagVisibility.Type

/** A tag made without saying otherwise is public, as the preference center has always shown tags. */
export const DEFAULT_TAG_VISIBILITY: TagVisibility = "public"

/** Tag names are unique per organization regardless of letter case. */
export const tagNameKey = (name: string): string => name.trim().toLowerCase().normalize("NFC")

export class Tag extends Schema.Class<Tag>("Tag")({
  id: TagId,
  organizationId: OrganizationId,
  name: Schema.String,
  slug: Slug,
  description: Schema.NullOr(Schema.String),
  displayName: Schema.NullOr(Schema.String),
  category: Schema.NullOr(Schema.String),
  visibility: TagVisibility,
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
