import { HttpApiBuilder } from "@effect/platform"
import { Subscribers, type SubscriberView } from "@roster/application"
import type { TagSubscription } from "@roster/domain"
import { Effect } from "effect"
import { CurrentPrincipal } from "../current-principal.js"
import { ReferenceApi } from "./api.js"
import { answerWithProblem } from "./application-problems.js"
import { setPageHeaders } from "./pagination.js"
import type { Subscriber, SubscriberTag } from "./subscriber-schemas.js"

const toSubscriber = ({ subscriber, tags }: SubscriberView): typeof Subscriber.Type => ({
  id: subscriber.id,
  email: subscriber.email,
  status: subscriber.status,
  tags: tags.map(({ tag }) => ({ id: tag.id, name: tag.name, slug: tag.slug })),
  metadata: subscriber.metadata,
  created_at: subscriber.createdAt.toISOString(),
  updated_at: subscriber.updatedAt.toISOString()
})

const toSubscriberTag = ({ subscribedAt, tag }: TagSubscription): typeof SubscriberTag.Type => ({
  id: tag.id,
  name: tag.name,
  slug: tag.slug,
  subscribed_at: subscribedAt.toISOString()
})

export const SubscribersHandlersLive = HttpApiBuilder.group(ReferenceApi, "subscribers", (handlers) =>
  Effect.gen(function*() {
    const subscribers = yield* Subscribers
    return handlers
      .handle("create", ({ payload }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) =>
            subscribers.create(principal, { email: payload.email, tagIds: payload.tags, metadata: payload.metadata })
          ),
          Effect.map(toSubscriber),
          answerWithProblem
        ))
      .handle("list", ({ urlParams }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) =>
            subscribers.list(principal, {
              status: urlParams.status,
              tagId: urlParams.tag,
              sort: urlParams.sort,
              order: urlParams.order,
              cursor: urlParams.cursor,
              limit: urlParams.limit
            })
          ),
          Effect.tap(setPageHeaders),
          Effect.map((page) => ({ items: page.items.map(toSubscriber), total: page.total, next_cursor: page.nextCursor })),
          answerWithProblem
        ))
      .handle("getByEmail", ({ path }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) => subscribers.getByEmail(principal, path.email)),
          Effect.map(toSubscriber),
          answerWithProblem
        ))
      .handle("get", ({ path }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) => subscribers.get(principal, path.subscriber_id)),
          Effect.map(toSubscriber),
          answerWithProblem
        ))
      .handle("update", ({ path, payload }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) =>
            subscribers.update(principal, path.subscriber_id, { status: payload.status, metadata: payload.metadata })
          ),
          Effect.map(toSubscriber),
          answerWithProblem
        ))
      .handle("delete", ({ path }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) => subscribers.remove(principal, path.subscriber_id)),
          answerWithProblem
        ))
      .handle("attachTags", ({ path, payload }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) => subscribers.attachTags(principal, path.subscriber_id, payload.tag_ids)),
          Effect.map(toSubscriber),
          answerWithProblem
        ))
      .handle("detachTag", ({ path }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) => subscribers.detachTag(principal, path.subscriber_id, path.tag_id)),
          answerWithProblem
        ))
      .handle("listTags", ({ path }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) => subscribers.listTags(principal, path.subscriber_id)),
          Effect.map((tags) => ({ items: tags.map(toSubscriberTag), total: tags.length, next_cursor: null })),
          answerWithProblem
        ))
  }))
