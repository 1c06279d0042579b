import { Schema } from "effect"
import { VisibilityInput } from "./tag-visibility.js"
import { DescriptionInput, MetadataInput, SlugInput, TagNameInput } from "./wire-fields.js"

/**
 * The fields of a tag that every wire form takes, in the order they are listed; a form puts its
 * own between the names and the rest (the overview form's `display_name` and `category`).
 */

const tagName = TagNameInput("unique in the organization regardless of letter case")

/** What names a new tag. */
export const newTagNames = {
  name: tagName,
  slug: Schema.optionalWith(SlugInput("unique in the organization; made from the name when left out"), { exact: true })
}

/** The rest of a new tag. */
export const newTagDetails = {
  description: Schema.optionalWith(DescriptionInput, { exact: true }),
  visibility: Schema.optionalWith(VisibilityInput, { exact: true }),
  metadata: Schema.optionalWith(MetadataInput(), { exact: true })
}

/** A tag's new name; its slug never changes. */
export const tagNameChange = {
  name: Schema.optionalWith(tagName, { exact: true })
}

/** The rest of a change to a tag. */
export const tagDetailChanges = {
  description: Schema.optionalWith(DescriptionInput, { exact: true }),
  visibility: Schema.optionalWith(VisibilityInput, { exact: true }),
  metadata: Schema.optionalWith(MetadataInput("replaces the whole map"), { exact: true })
}
