import { TagVisibility } from "@roster/domain"
import { oneOf } from "./wire-fields.js"

/** A tag's `visibility`, the same in both forms. */

const meaning = "`public` tags are offered in the preference center, where subscribers take and drop them " +
  "themselves; `private` tags are seen only through the API and by the organization's people"

export const VisibilityOutput = oneOf(TagVisibility, meaning)

export const VisibilityInput = oneOf(TagVisibility, `${meaning}; \`public\` when left out on create`)
