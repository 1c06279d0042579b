import { HttpApiBuilder } from "@effect/platform"
import { Tags } from "@roster/application"
import type { Tag as DomainTag } from "@roster/domain"
import { Effect } from "effect"
import { CurrentPrincipal } from "../current-principal.js"
import { ReferenceApi } from "./api.js"
import { answerWithProblem } from "./application-problems.js"
import { setPageHeaders } from "./pagination.js"
import type { Tag } from "./tag-schemas.js"

const toTag = (tag: DomainTag): typeof Tag.Type => ({
  id: tag.id,
  name: tag.name,
  slug: tag.slug,
  description: tag.description,
  metadata: tag.metadata,
  subscriber_count: tag.subscriberCount,
  created_at: tag.createdAt.toISOString(),
  updated_at: tag.updatedAt.toISOString()
})

export const TagsHandlersLive = HttpApiBuilder.group(ReferenceApi, "tags", (handlers) =>
  Effect.gen(function*() {
    const tags = yield* Tags
    return handlers
      .handle("create", ({ payload }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) =>
            tags.create(principal, {
              name: payload.name,
              slug: payload.slug,
              description: payload.description,
              metadata: payload.metadata
            })
          ),
          Effect.map(toTag),
          answerWithProblem
        ))
      .handle("list", ({ urlParams }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) =>
            tags.list(principal, {
              sort: urlParams.sort,
              order: urlParams.order,
              cursor: urlParams.cursor,
              limit: urlParams.limit
            })
          ),
          Effect.tap(setPageHeaders),
          Effect.map((page) => ({ items: page.items.map(toTag), total: page.total, next_cursor: page.nextCursor })),
          answerWithProblem
        ))
      .handle("getByName", ({ path }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) => tags.getByName(principal, path.name)),
          Effect.map(toTag),
          answerWithProblem
        ))
      .handle("get", ({ path }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) => tags.get(principal, path.tag_id)),
          Effect.map(toTag),
          answerWithProblem
        ))
      .handle("update", ({ path, payload }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) =>
            tags.update(principal, path.tag_id, {
              name: payload.name,
              description: payload.description,
              metadata: payload.metadata
            })
          ),
          Effect.map(toTag),
          answerWithProblem
        ))
      .handle("delete", ({ path }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) => tags.remove(principal, path.tag_id)),
          answerWithProblem
        ))
  }))
