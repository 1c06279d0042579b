import { HttpApiBuilder } from "@effect/platform"
import { Subscribers, type SubscriberView } from "@roster/application"
import type { TagSubscription } from "@roster/domain"
import { Effect } from "effect"
import { CurrentPrincipal } from "../current-principal.js"
import { answerWithError, listOf } from "./answers.js"
import { OverviewApi } from "./api.js"
import type { Subscriber, TagOfSubscriber } from "./schemas.js"

const toTag = ({ subscribedAt, tag }: TagSubscription): typeof TagOfSubscriber.Type => ({
  name: tag.name,
  subscribed_at: subscribedAt.toISOString()
})

const toSubscriber = ({ subscriber, tags }: SubscriberView): typeof Subscriber.Type => ({
  id: subscriber.id,
  email: subscriber.email,
  status: subscriber.status,
  first_name: subscriber.firstName,
  last_name: subscriber.lastName,
  tags: tags.map(toTag),
  metadata: subscriber.metadata,
  created_at: subscriber.createdAt.toISOString(),
  updated_at: subscriber.updatedAt.toISOString()
})

const data = <A>(value: A) => ({ data: value })

export const SubscribersHandlersLive = HttpApiBuilder.group(OverviewApi, "subscribers", (handlers) =>
  Effect.gen(function*() {
    const subscribers = yield* Subscribers
    return handlers
      .handle("list", ({ urlParams }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) =>
            subscribers.listPage(principal, {
              page: urlParams.page,
              perPage: urlParams.per_page,
              sort: urlParams.sort,
              status: urlParams.status,
              tagName: urlParams.tag
            })
          ),
          Effect.map((page) => listOf(page, toSubscriber)),
          answerWithError
        ))
      .handle("create", ({ payload }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) =>
            subscribers.create(principal, {
              email: payload.email,
              tagNames: payload.tags,
              firstName: payload.first_name,
              lastName: payload.last_name,
              metadata: payload.metadata
            })
          ),
          Effect.map((view) => data(toSubscriber(view))),
          answerWithError
        ))
      .handle("get", ({ path }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) => subscribers.get(principal, path.id)),
          Effect.map((view) => data(toSubscriber(view))),
          answerWithError
        ))
      .handle("update", ({ path, payload }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) =>
            subscribers.update(principal, path.id, {
              status: payload.status,
              firstName: payload.first_name,
              lastName: payload.last_name,
              metadata: payload.metadata
            })
          ),
          Effect.map((view) => data(toSubscriber(view))),
          answerWithError
        ))
      .handle("delete", ({ path }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) => subscribers.remove(principal, path.id)),
          answerWithError
        ))
      .handle("listTags", ({ path }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) => subscribers.listTags(principal, path.id)),
          Effect.map((tags) => data(tags.map(toTag))),
          answerWithError
        ))
      .handle("changeTags", ({ path, payload }) =>
        CurrentPrincipal.pipe(
          Effect.flatMap((principal) => subscribers.changeTags(principal, path.id, { add: payload.add, remove: payload.remove })),
          Effect.map((view) => data(view.tags.map(toTag))),
          answerWithError
        ))
  }))
