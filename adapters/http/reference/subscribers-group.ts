import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Authentication } from "./authentication.js"
import { documentPageHeaders } from "./pagination.js"
import { problems } from "./problems.js"
import { PreferenceLink } from "../shared/preference-schemas.js"
import { API_ROUTE_ERRORS, BODY_ERRORS, POST_ERRORS } from "../shared/wire-errors.js"
import {
  AttachTagsRequest,
  CreatedSubscriber,
  CreateSubscriberRequest,
  Subscriber,
  SubscriberEmailPath,
  SubscriberList,
  SubscriberListParams,
  SubscriberPath,
  SubscriberTagList,
  SubscriberTagPath,
  UpdateSubscriberRequest
} from "./subscriber-schemas.js"
import { NoFields, optionalBody } from "../shared/action-body.js"

export const SubscribersGroup = HttpApiGroup.make("subscribers")
  .add(
    HttpApiEndpoint.post("create", "/subscribers")
      .setPayload(CreateSubscriberRequest)
      .addSuccess(CreatedSubscriber)
      .pipe(problems.endpoint("limit_exceeded", "conflict", "tag_limit_reached", ...POST_ERRORS))
      .annotateContext(OpenApi.annotations({
        summary: "Create a subscriber",
        description: "Creates an `active` subscriber, optionally with tags (ids of the organization's tags) and metadata. " +
          "Scope `subscribers:write`. 409 `conflict` when the email exists in the organization (regardless of letter case); " +
          "402 `limit_exceeded` when the plan's subscriber limit is reached; 409 `tag_limit_reached` for more than 200 tags."
      }))
  )
  .add(
    HttpApiEndpoint.get("list", "/subscribers")
      .setUrlParams(SubscriberListParams)
      .addSuccess(SubscriberList)
      .annotate(OpenApi.Transform, documentPageHeaders)
      .annotateContext(OpenApi.annotations({
        summary: "List subscribers",
        description: "One page of the organization's subscribers, optionally filtered by status and tag. Follow `next_cursor` " +
          "(or the `Link` header) for the next page with the same `sort` and `order`. Scope `subscribers:read`."
      }))
  )
  .add(
    HttpApiEndpoint.get("getByEmail", "/subscribers/by-email/:email")
      .setPath(SubscriberEmailPath)
      .addSuccess(Subscriber)
      .pipe(problems.endpoint("not_found"))
      .annotateContext(OpenApi.annotations({
        summary: "Find a subscriber by email",
        description: "The subscriber with this email address (URL-encoded in the path), compared regardless of letter case. " +
          "404 when there is none; 400 when the address is not valid. Scope `subscribers:read`."
      }))
  )
  .add(
    HttpApiEndpoint.get("get", "/subscribers/:subscriber_id")
      .setPath(SubscriberPath)
      .addSuccess(Subscriber)
      .pipe(problems.endpoint("not_found"))
      .annotateContext(OpenApi.annotations({
        summary: "Get a subscriber",
        description: "Scope `subscribers:read`."
      }))
  )
  .add(
    HttpApiEndpoint.put("update", "/subscribers/:subscriber_id")
      .setPath(SubscriberPath)
      .setPayload(UpdateSubscriberRequest)
      .addSuccess(Subscriber)
      .pipe(problems.endpoint("not_found", "invalid_status_transition", ...BODY_ERRORS))
      .annotateContext(OpenApi.annotations({
        summary: "Update a subscriber",
        description: "Changes the status and/or replaces the metadata; fields left out stay as they are. A status move the " +
          "API may not make is 409 `invalid_status_transition`. Scope `subscribers:write`."
      }))
  )
  .add(
    HttpApiEndpoint.del("delete", "/subscribers/:subscriber_id")
      .setPath(SubscriberPath)
      .setPayload(NoFields)
      .pipe(problems.endpoint("not_found", ...BODY_ERRORS))
      .annotate(OpenApi.Transform, optionalBody)
      .annotateContext(OpenApi.annotations({
        summary: "Delete a subscriber",
        description: "Deletes the subscriber permanently, with its tag associations. Scope `subscribers:delete`."
      }))
  )
  .add(
    HttpApiEndpoint.post("attachTags", "/subscribers/:subscriber_id/tags")
      .setPath(SubscriberPath)
      .setPayload(AttachTagsRequest)
      .addSuccess(Subscriber)
      .pipe(problems.endpoint("not_found", "tag_limit_reached", ...POST_ERRORS))
      .annotateContext(OpenApi.annotations({
        summary: "Attach tags to a subscriber",
        description: "Attaches the tags (ids of the organization's tags) and answers the updated subscriber. Tags already " +
          "attached stay as they are; an id of no tag of the organization is 400. 409 `tag_limit_reached` when the " +
          "subscriber would carry more than 200 tags (nothing is attached). Scope `subscribers:write`."
      }))
  )
  .add(
    HttpApiEndpoint.del("detachTag", "/subscribers/:subscriber_id/tags/:tag_id")
      .setPath(SubscriberTagPath)
      .setPayload(NoFields)
      .pipe(problems.endpoint("not_found", ...BODY_ERRORS))
      .annotate(OpenApi.Transform, optionalBody)
      .annotateContext(OpenApi.annotations({
        summary: "Detach a tag from a subscriber",
        description: "Answers 204 whether or not the subscriber carried the tag; 404 when the subscriber or the tag does not " +
          "exist. Scope `subscribers:write`."
      }))
  )
  .add(
    HttpApiEndpoint.get("listTags", "/subscribers/:subscriber_id/tags")
      .setPath(SubscriberPath)
      .addSuccess(SubscriberTagList)
      .pipe(problems.endpoint("not_found"))
      .annotateContext(OpenApi.annotations({
        summary: "List a subscriber's tags",
        description: "Every tag the subscriber carries with the time it was attached, oldest first, in one page. Scope `subscribers:read`."
      }))
  )
  .add(
    HttpApiEndpoint.post("issuePreferenceLink", "/subscribers/:subscriber_id/token")
      .setPath(SubscriberPath)
      .setPayload(NoFields)
      .addSuccess(PreferenceLink)
      .pipe(problems.endpoint("not_found", ...POST_ERRORS))
      .annotate(OpenApi.Transform, optionalBody)
      .annotateContext(OpenApi.annotations({
        summary: "Make a preference link",
        description: "A token, good for 30 days, with which the subscriber sees and changes their own subscriptions at " +
          "`url` (the preference center), exports their data or asks for its erasure, without an account. Scope " +
          "`subscribers:write`."
      }))
  )
  .add(
    HttpApiEndpoint.del("revokePreferenceLinks", "/subscribers/:subscriber_id/token")
      .setPath(SubscriberPath)
      .setPayload(NoFields)
      .pipe(problems.endpoint("not_found", ...BODY_ERRORS))
      .annotate(OpenApi.Transform, optionalBody)
      .annotateContext(OpenApi.annotations({
        summary: "Revoke a subscriber's preference links",
        description: "Every preference token issued for the subscriber so far stops working at once (401 " +
          "`invalid_token`); tokens made afterwards work. Scope `subscribers:write`."
      }))
  )
  .middleware(Authentication)
  .pipe(problems.group(...API_ROUTE_ERRORS))
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Subscribers")
  .annotate(OpenApi.Description, "Contacts of the organization, identified by email address, with status, tags and metadata.")
