import { HttpApiBuilder } from "@effect/platform"
import {
  type NewSubscriber,
  Preferences,
  type SubscriberPageRequest,
  Subscribers,
  type SubscriberView
} from "@roster/application"
import { instantText, type SubscriberChanges, type TagSubscription } from "@roster/domain"
import { Effect } from "effect"
import { HttpSettings } from "../shared/http-settings.js"
import { toPreferenceLink } from "../shared/preference-schemas.js"
import { givenConsent, toConfirmationSent, toConsentRecord } from "../shared/consent-schemas.js"
import { respond } from "../shared/respond.js"
import { OverviewApi } from "./api.js"
import { dataOf, listOf, pageRequestOf } from "./pages.js"
import type {
  CreateSubscriberRequest,
  Subscriber,
  SubscriberListParams,
  TagOfSubscriber,
  UpdateSubscriberRequest
} from "./schemas.js"

const toTag = ({ subscribedAt, tag }: TagSubscription): typeof TagOfSubscriber.Type => ({
  name: tag.name,
  subscribed_at: instantText(subscribedAt)
})

export const toSubscriber = ({ subscriber, tags }: SubscriberView): typeof Subscriber.Type => ({
  id: subscriber.id,
  email: subscriber.email,
  status: subscriber.status,
  first_name: subscriber.firstName,
  last_name: subscriber.lastName,
  tags: tags.map(toTag),
  metadata: subscriber.metadata,
  created_at: instantText(subscriber.createdAt),
  updated_at: instantText(subscriber.updatedAt)
})

const subscriberData = (view: SubscriberView) => dataOf(toSubscriber(view))

const tagsData = (tags: ReadonlyArray<TagSubscription>) => dataOf(tags.map(toTag))

const newSubscriber = (body: typeof CreateSubscriberRequest.Type): NewSubscriber => ({
  email: body.email,
  tagNames: body.tags,
  firstName: body.first_name,
  lastName: body.last_name,
  metadata: body.metadata,
  consent: givenConsent(body.consent),
  locale: body.locale
})

const subscriberChanges = (body: typeof UpdateSubscriberRequest.Type): SubscriberChanges => ({
  status: body.status,
  firstName: body.first_name,
  lastName: body.last_name,
  metadata: body.metadata
})

const pageRequest = ({ tag, ...query }: typeof SubscriberListParams.Type): SubscriberPageRequest => ({
  ...pageRequestOf(query),
  tagName: tag
})

export const SubscribersHandlersLive = HttpApiBuilder.group(OverviewApi, "subscribers", (handlers) =>
  Effect.gen(function*() {
    const subscribers = yield* Subscribers
    const preferences = yield* Preferences
    const toLink = toPreferenceLink((yield* HttpSettings).publicBaseUrl)
    return handlers
      .handle("list", ({ urlParams }) =>
        respond((caller) => subscribers.listPage(caller, pageRequest(urlParams)), (page) => listOf(page, toSubscriber)))
      .handle("create", ({ payload }) =>
        respond((caller) =>
          Effect.gen(function*() {
            if (payload.double_opt_in === true) {
              return dataOf(toConfirmationSent(yield* subscribers.requestConfirmation(caller, newSubscriber(payload))))
            }
            return subscriberData(yield* subscribers.create(caller, newSubscriber(payload)))
          })
        ))
      .handle("get", ({ path }) => respond((caller) => subscribers.get(caller, path.id), subscriberData))
      .handle("update", ({ path, payload }) =>
        respond((caller) => subscribers.update(caller, path.id, subscriberChanges(payload)), subscriberData))
      .handle("delete", ({ path }) => respond((caller) => subscribers.remove(caller, path.id)))
      .handle("listTags", ({ path }) => respond((caller) => subscribers.listTags(caller, path.id), tagsData))
      .handle("consents", ({ path }) =>
        respond((caller) => subscribers.consents(caller, path.id), (consents) => dataOf(consents.map(toConsentRecord))))
      .handle("changeTags", ({ path, payload }) =>
        respond((caller) => subscribers.changeTags(caller, path.id, payload), (view) => tagsData(view.tags)))
      .handle("issuePreferenceLink", ({ path }) =>
        respond((caller) => preferences.issueLink(caller, path.id), (link) => dataOf(toLink(link))))
      .handle("revokePreferenceLinks", ({ path }) => respond((caller) => preferences.revokeLinks(caller, path.id)))
  }))
