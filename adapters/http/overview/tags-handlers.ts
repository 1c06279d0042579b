import { HttpApiBuilder } from "@effect/platform"
import { Tags } from "@roster/application"
import type { Tag as DomainTag } from "@roster/domain"
import { Effect } from "effect"
import { CurrentPrincipal } from "../current-principal.js"
import { answerWithError, listOf } from "./answers.js"
import { OverviewApi } from "./api.js"
import type { Tag } from "./schemas.js"

const toTag = (tag: DomainTag): typeof Tag.Type => ({
  id: tag.id,
  name: tag.name,
  slug: tag.slug,
  display_name: tag.displayName,
  category: tag.category,
  description: tag.description,
  metadata: tag.metadata,
  subscriber_count: tag.subscriberCount,
  created_at: tag.createdAt.toISOString(),
  updated_at: tag.updatedAt.toISOString()
})

export const TagsHandlersLive = HttpApiBuilder.group(OverviewApi, "tags", (handlers) =>
  Effect.gen(function*() {
    const tags = yield* Tags
    return handlers
      .handle("list", ({ urlParams }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) =>
            tags.listPage(principal, {
              page: urlParams.page,
              perPage: urlParams.per_page,
              sort: urlParams.sort,
              category: urlParams.category
            })
          ),
          Effect.map((page) => listOf(page, toTag)),
          answerWithError
        ))
      .handle("create", ({ payload }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) =>
            tags.create(principal, {
              name: payload.name,
              slug: payload.slug,
              displayName: payload.display_name,
              category: payload.category,
              description: payload.description,
              metadata: payload.metadata
            })
          ),
          Effect.map((tag) => ({ data: toTag(tag) })),
          answerWithError
        ))
      .handle("get", ({ path }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) => tags.get(principal, path.id)),
          Effect.map((tag) => ({ data: toTag(tag) })),
          answerWithError
        ))
      .handle("update", ({ path, payload }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) =>
            tags.update(principal, path.id, {
              name: payload.name,
              displayName: payload.display_name,
              category: payload.category,
              description: payload.description,
              metadata: payload.metadata
            })
          ),
          Effect.map((tag) => ({ data: toTag(tag) })),
          answerWithError
        ))
      .handle("delete", ({ path }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) => tags.remove(principal, path.id)),
          answerWithError
        ))
  }))
