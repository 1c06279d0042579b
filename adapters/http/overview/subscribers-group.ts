import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { OverviewAuthentication } from "./authentication.js"
import { PreferenceLink } from "../shared/preference-schemas.js"
import { OVERVIEW_PREFIX } from "./paths.js"
import {
  ChangeTagsRequest,
  CreatedSubscriberData,
  CreateSubscriberRequest,
  SubscriberData,
  SubscriberList,
  SubscriberListParams,
  SubscriberPath,
  Single,
  SubscriberTags,
  UpdateSubscriberRequest
} from "./schemas.js"
import { NoFields, optionalBody } from "../shared/action-body.js"

const PreferenceLinkData = Single(PreferenceLink, "PreferenceLinkData")

export const SubscribersGroup = HttpApiGroup.make("subscribers")
  .add(
    HttpApiEndpoint.get("list", "/subscribers")
      .setUrlParams(SubscriberListParams)
      .addSuccess(SubscriberList)
      .annotateContext(OpenApi.annotations({
        summary: "List subscribers",
        description: "One numbered page of the organization's subscribers, optionally of one status and carrying the tag " +
          "of one name. Newest first unless `sort` says otherwise. Scope `subscribers:read`."
      }))
  )
  .add(
    HttpApiEndpoint.post("create", "/subscribers")
      .setPayload(CreateSubscriberRequest)
      .addSuccess(CreatedSubscriberData)
      .annotateContext(OpenApi.annotations({
        summary: "Create a subscriber",
        description: "Creates an `active` subscriber, optionally with names, tags (by name) and metadata. " +
          "Scope `subscribers:write`. 409 `conflict` when the email exists in the organization; " +
          "402 `limit_exceeded` when the plan's subscriber limit is reached."
      }))
  )
  .add(
    HttpApiEndpoint.get("get", "/subscribers/:id")
      .setPath(SubscriberPath)
      .addSuccess(SubscriberData)
      .annotateContext(OpenApi.annotations({ summary: "Get a subscriber", description: "Scope `subscribers:read`." }))
  )
  .add(
    HttpApiEndpoint.patch("update", "/subscribers/:id")
      .setPath(SubscriberPath)
      .setPayload(UpdateSubscriberRequest)
      .addSuccess(SubscriberData)
      .annotateContext(OpenApi.annotations({
        summary: "Update a subscriber",
        description: "Changes the status, names and/or metadata; fields left out stay as they are. Scope `subscribers:write`."
      }))
  )
  .add(
    HttpApiEndpoint.del("delete", "/subscribers/:id")
      .setPath(SubscriberPath)
      .setPayload(NoFields)
      .annotate(OpenApi.Transform, optionalBody)
      .annotateContext(OpenApi.annotations({
        summary: "Delete a subscriber",
        description: "Deletes the subscriber permanently, with its tag associations. Scope `subscribers:delete`."
      }))
  )
  .add(
    HttpApiEndpoint.get("listTags", "/subscribers/:id/tags")
      .setPath(SubscriberPath)
      .addSuccess(SubscriberTags)
      .annotateContext(OpenApi.annotations({
        summary: "List a subscriber's tags",
        description: "Every tag the subscriber carries with the time it was attached, oldest first. Scope `subscribers:read`."
      }))
  )
  .add(
    HttpApiEndpoint.patch("changeTags", "/subscribers/:id/tags")
      .setPath(SubscriberPath)
      .setPayload(ChangeTagsRequest)
      .addSuccess(SubscriberTags)
      .annotateContext(OpenApi.annotations({
        summary: "Change a subscriber's tags",
        description: "Attaches the tags named in `add` and detaches those named in `remove`, and answers the tags the " +
          "subscriber carries afterwards. Scope `subscribers:write`."
      }))
  )
  .add(
    HttpApiEndpoint.post("issuePreferenceLink", "/subscribers/:id/token")
      .setPath(SubscriberPath)
      .setPayload(NoFields)
      .addSuccess(PreferenceLinkData)
      .annotate(OpenApi.Transform, optionalBody)
      .annotateContext(OpenApi.annotations({
        summary: "Make a preference link",
        description: "A token, good for 30 days, with which the subscriber sees and changes their own subscriptions at " +
          "`url`, without an account. Scope `subscribers:write`."
      }))
  )
  .add(
    HttpApiEndpoint.del("revokePreferenceLinks", "/subscribers/:id/token")
      .setPath(SubscriberPath)
      .setPayload(NoFields)
      .annotate(OpenApi.Transform, optionalBody)
      .annotateContext(OpenApi.annotations({
        summary: "Revoke a subscriber's preference links",
        description: "Every preference token issued for the subscriber so far stops working at once. Scope `subscribers:write`."
      }))
  )
  .middleware(OverviewAuthentication)
  .prefix(OVERVIEW_PREFIX)
  .annotate(OpenApi.Title, "Subscribers")
  .annotate(OpenApi.Description, "Contacts of the organization, identified by email address, with status, names, tags and metadata.")
