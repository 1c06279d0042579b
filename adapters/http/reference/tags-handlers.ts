import { HttpApiBuilder } from "@effect/platform"
import { Tags } from "@roster/application"
import { instantText, type Tag as DomainTag } from "@roster/domain"
import { Effect } from "effect"
import { respond } from "../shared/respond.js"
import { ReferenceApi } from "./api.js"
import { paged, pageOf } from "./pagination.js"
import type { Tag } from "./tag-schemas.js"

const toTag = (tag: DomainTag): typeof Tag.Type => ({
  id: tag.id,
  name: tag.name,
  slug: tag.slug,
  description: tag.description,
  visibility: tag.visibility,
  metadata: tag.metadata,
  subscriber_count: tag.subscriberCount,
  created_at: instantText(tag.createdAt),
  updated_at: instantText(tag.updatedAt)
})

// The request bodies and queries of this form name their fields as the use case does.
export const TagsHandlersLive = HttpApiBuilder.group(ReferenceApi, "tags", (handlers) =>
  Effect.gen(function*() {
    const tags = yield* Tags
    return handlers
      .handle("create", ({ payload }) => respond((caller) => tags.create(caller, payload), toTag))
      .handle("list", ({ urlParams }) => respond((caller) => paged(tags.list(caller, urlParams)), pageOf(toTag)))
      .handle("getByName", ({ path }) => respond((caller) => tags.getByName(caller, path.name), toTag))
      .handle("get", ({ path }) => respond((caller) => tags.get(caller, path.tag_id), toTag))
      .handle("update", ({ path, payload }) => respond((caller) => tags.update(caller, path.tag_id, payload), toTag))
      .handle("delete", ({ path }) => respond((caller) => tags.remove(caller, path.tag_id)))
  }))
