import { HttpApiBuilder } from "@effect/platform"
import {
  type NewSubscriber,
  Preferences,
  type Principal,
  type SubscriberListRequest,
  Subscribers,
  type SubscriberView
} from "@roster/application"
import { instantText, type TagSubscription } from "@roster/domain"
import { Effect } from "effect"
import { HttpSettings } from "../shared/http-settings.js"
import { toPreferenceLink } from "../shared/preference-schemas.js"
import { givenConsent, toConfirmationSent, toConsentRecord } from "../shared/consent-schemas.js"
import { respond } from "../shared/respond.js"
import { ReferenceApi } from "./api.js"
import { paged, pageOf } from "./pagination.js"
import type {
  CreateSubscriberRequest,
  Subscriber,
  SubscriberListParams,
  SubscriberTag
} from "./subscriber-schemas.js"

export const toSubscriber = ({ subscriber, tags }: SubscriberView): typeof Subscriber.Type => ({
  id: subscriber.id,
  email: subscriber.email,
  status: subscriber.status,
  tags: tags.map(({ tag }) => ({ id: tag.id, name: tag.name, slug: tag.slug })),
  metadata: subscriber.metadata,
  created_at: instantText(subscriber.createdAt),
  updated_at: instantText(subscriber.updatedAt)
})

const toSubscriberTag = ({ subscribedAt, tag }: TagSubscription): typeof SubscriberTag.Type => ({
  id: tag.id,
  name: tag.name,
  slug: tag.slug,
  subscribed_at: instantText(subscribedAt)
})

/** A subscriber's tags, as one whole page. */
const toSubscriberTags = (tags: ReadonlyArray<TagSubscription>) => ({
  items: tags.map(toSubscriberTag),
  total: tags.length,
  next_cursor: null
})

export const newSubscriber = ({ consent, email, locale, metadata, tags }: typeof CreateSubscriberRequest.Type): NewSubscriber => ({
  email,
  tagIds: tags,
  metadata,
  consent: givenConsent(consent),
  locale
})

/**
 * A create: the subscriber made at once, or with `double_opt_in` the confirmation asked for. The
 * same for the handler and the direct lane.
 */
export const createOrRequest = (subscribers: Subscribers, payload: typeof CreateSubscriberRequest.Type, caller: Principal) =>
  Effect.gen(function*() {
    if (payload.double_opt_in === true) {
      return toConfirmationSent(yield* subscribers.requestConfirmation(caller, newSubscriber(payload)))
    }
    return toSubscriber(yield* subscribers.create(caller, newSubscriber(payload)))
  })

const listRequest = ({ tag, ...query }: typeof SubscriberListParams.Type): SubscriberListRequest => ({ ...query, tagId: tag })

export const SubscribersHandlersLive = HttpApiBuilder.group(ReferenceApi, "subscribers", (handlers) =>
  Effect.gen(function*() {
    const subscribers = yield* Subscribers
    const preferences = yield* Preferences
    const toLink = toPreferenceLink((yield* HttpSettings).publicBaseUrl)
    return handlers
      .handle("create", ({ payload }) => respond((caller) => createOrRequest(subscribers, payload, caller)))
      .handle("list", ({ urlParams }) =>
        respond((caller) => paged(subscribers.list(caller, listRequest(urlParams))), (page) => ({
          ...pageOf(toSubscriber)(page),
          total_capped: page.totalCapped
        })))
      .handle("getByEmail", ({ path }) => respond((caller) => subscribers.getByEmail(caller, path.email), toSubscriber))
      .handle("get", ({ path }) => respond((caller) => subscribers.get(caller, path.subscriber_id), toSubscriber))
      .handle("update", ({ path, payload }) =>
        respond((caller) => subscribers.update(caller, path.subscriber_id, payload), toSubscriber))
      .handle("delete", ({ path }) => respond((caller) => subscribers.remove(caller, path.subscriber_id)))
      .handle("attachTags", ({ path, payload }) =>
        respond((caller) => subscribers.attachTags(caller, path.subscriber_id, payload.tag_ids), toSubscriber))
      .handle("detachTag", ({ path }) => respond((caller) => subscribers.detachTag(caller, path.subscriber_id, path.tag_id)))
      .handle("listTags", ({ path }) => respond((caller) => subscribers.listTags(caller, path.subscriber_id), toSubscriberTags))
      .handle("consents", ({ path }) =>
        respond((caller) => subscribers.consents(caller, path.subscriber_id), (consents) => ({
          items: consents.map(toConsentRecord),
          total: consents.length,
          next_cursor: null
        })))
      .handle("issuePreferenceLink", ({ path }) => respond((caller) => preferences.issueLink(caller, path.subscriber_id), toLink))
      .handle("revokePreferenceLinks", ({ path }) => respond((caller) => preferences.revokeLinks(caller, path.subscriber_id)))
  }))
