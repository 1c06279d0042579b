import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { OverviewAuthentication } from "./authentication.js"
import { PreferenceLink } from "../shared/preference-schemas.js"
import { OVERVIEW_PREFIX } from "./paths.js"
import {
  ChangeTagsRequest,
  ConfirmationSentData,
  CreatedSubscriberData,
  CreateSubscriberRequest,
  SubscriberConsents,
  SubscriberData,
  SubscriberList,
  SubscriberListParams,
  Single,
  SubscriberTags,
  UpdateSubscriberRequest
} from "./schemas.js"
import { doubleOptIn, subscriberEndpoints } from "../shared/subscriber-endpoints.js"
import { envelopes } from "./errors.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"

const PreferenceLinkData = Single(PreferenceLink, "PreferenceLinkData")

const subscribers = subscriberEndpoints("id")

export const SubscribersGroup = HttpApiGroup.make("subscribers")
  .add(
    HttpApiEndpoint.get("list", "/subscribers")
      .setUrlParams(SubscriberListParams)
      .addSuccess(SubscriberList)
      .pipe(envelopes.describe({
        ...subscribers.list,
        description: "One numbered page of the organization's subscribers, optionally of one status, carrying the tag " +
          "of one name and whose email starts with `search` (letter case ignored). Newest first unless `sort` says " +
          "otherwise. Scope `subscribers:read`."
      }))
  )
  .add(
    HttpApiEndpoint.post("create", "/subscribers")
      .setPayload(CreateSubscriberRequest)
      .addSuccess(CreatedSubscriberData)
      .addSuccess(ConfirmationSentData)
      .pipe(envelopes.describe({
        ...subscribers.create,
        description: "Creates an `active` subscriber, optionally with names, tags (by name), metadata and a `consent` " +
          "(kept naming the API key). Scope `subscribers:write`. 409 `conflict` when the email exists in the " +
          `organization; 402 \`limit_exceeded\` when the plan's subscriber limit is reached. ${doubleOptIn}`
      }))
  )
  .add(envelopes.declare(subscribers.get).addSuccess(SubscriberData))
  .add(
    HttpApiEndpoint.patch("update", subscribers.address)
      .setPath(subscribers.path)
      .setPayload(UpdateSubscriberRequest)
      .addSuccess(SubscriberData)
      .pipe(envelopes.describe({
        ...subscribers.update,
        description: "Changes the status, names and/or metadata; fields left out stay as they are. Scope `subscribers:write`."
      }))
  )
  .add(envelopes.declare(subscribers.delete))
  .add(
    envelopes.declare({
      ...subscribers.listTags,
      description: "Every tag the subscriber carries with the time it was attached, oldest first. Scope `subscribers:read`."
    }).addSuccess(SubscriberTags)
  )
  .add(envelopes.declare(subscribers.consents).addSuccess(SubscriberConsents))
  .add(
    HttpApiEndpoint.patch("changeTags", `${subscribers.address}/tags`)
      .setPath(subscribers.path)
      .setPayload(ChangeTagsRequest)
      .addSuccess(SubscriberTags)
      .pipe(envelopes.describe(subscribers.changeTags))
  )
  .add(
    envelopes.declare({
      ...subscribers.issuePreferenceLink,
      description: "A token, good for 30 days, with which the subscriber sees and changes their own subscriptions at " +
        "`url`, without an account. Scope `subscribers:write`."
    }).addSuccess(PreferenceLinkData)
  )
  .add(
    envelopes.declare({
      ...subscribers.revokePreferenceLinks,
      description: "Every preference token issued for the subscriber so far stops working at once. Scope `subscribers:write`."
    })
  )
  .middleware(OverviewAuthentication)
  .pipe(envelopes.group(...API_ROUTE_ERRORS))
  .prefix(OVERVIEW_PREFIX)
  .annotate(OpenApi.Title, "Subscribers")
  .annotate(OpenApi.Description, "Contacts of the organization, identified by email address, with status, names, tags and metadata.")
