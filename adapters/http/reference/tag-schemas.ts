import { Schema } from "effect"
import { cursorParam, limitParam, orderParam, Page, sortParam } from "./pagination.js"
import {
  Count,
  MetadataOutput,
  strictInput,
  TagNameInput,
  Timestamp,
  Uuid,
  withStatus
} from "../shared/wire-fields.js"
import { newTagDetails, newTagNames, tagDetailChanges, tagNameChange } from "../shared/tag-request-fields.js"
import { VisibilityOutput } from "../shared/tag-visibility.js"

/** Tags as the reference form shows and accepts them. */

export const Tag = Schema.Struct({
  id: Uuid,
  name: Schema.String,
  slug: Schema.String,
  description: Schema.NullOr(Schema.String),
  visibility: VisibilityOutput,
  metadata: MetadataOutput,
  subscriber_count: Count("how many subscribers carry the tag"),
  created_at: Timestamp,
  updated_at: Timestamp
}).annotations({ identifier: "Tag" })

export const CreatedTag = withStatus(Tag, 201, "Tag")

export const TagList = Page(Tag, "TagList")

export const CreateTagRequest = Schema.Struct({ ...newTagNames, ...newTagDetails }).annotations({ identifier: "CreateTagRequest", ...strictInput })

export const UpdateTagRequest = Schema.Struct({ ...tagNameChange, ...tagDetailChanges }).annotations({
  identifier: "UpdateTagRequest",
  description: "fields left out stay as they are; the slug never changes",
  ...strictInput
})

export const TagNamePath = Schema.Struct({
  name: TagNameInput("the tag's name, URL-encoded; compared regardless of letter case")
})

export const TagListParams = Schema.Struct({
  cursor: cursorParam,
  limit: limitParam,
  sort: sortParam(["name", "created_at", "subscriber_count"]),
  order: orderParam("asc")
}).annotations(strictInput)
