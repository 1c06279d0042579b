import { HttpApiBuilder } from "@effect/platform"
import { type NewTag, type TagChanges, Tags } from "@roster/application"
import { instantText, type Tag as DomainTag } from "@roster/domain"
import { Effect } from "effect"
import { respond } from "../shared/respond.js"
import { OverviewApi } from "./api.js"
import { dataOf, listOf, pageRequestOf } from "./pages.js"
import type { CreateTagRequest, Tag, UpdateTagRequest } from "./schemas.js"

const toTag = (tag: DomainTag): typeof Tag.Type => ({
  id: tag.id,
  name: tag.name,
  slug: tag.slug,
  display_name: tag.displayName,
  category: tag.category,
  description: tag.description,
  visibility: tag.visibility,
  metadata: tag.metadata,
  subscriber_count: tag.subscriberCount,
  created_at: instantText(tag.createdAt),
  updated_at: instantText(tag.updatedAt)
})

const tagData = (tag: DomainTag) => dataOf(toTag(tag))

const newTag = ({ display_name, ...fields }: typeof CreateTagRequest.Type): NewTag => ({ ...fields, displayName: display_name })

const tagChanges = ({ display_name, ...fields }: typeof UpdateTagRequest.Type): TagChanges => ({
  ...fields,
  displayName: display_name
})

export const TagsHandlersLive = HttpApiBuilder.group(OverviewApi, "tags", (handlers) =>
  Effect.gen(function*() {
    const tags = yield* Tags
    return handlers
      .handle("list", ({ urlParams }) =>
        respond((caller) => tags.listPage(caller, pageRequestOf(urlParams)), (page) => listOf(page, toTag)))
      .handle("create", ({ payload }) => respond((caller) => tags.create(caller, newTag(payload)), tagData))
      .handle("get", ({ path }) => respond((caller) => tags.get(caller, path.id), tagData))
      .handle("update", ({ path, payload }) => respond((caller) => tags.update(caller, path.id, tagChanges(payload)), tagData))
      .handle("delete", ({ path }) => respond((caller) => tags.remove(caller, path.id)))
  }))
