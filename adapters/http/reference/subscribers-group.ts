import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Authentication } from "./authentication.js"
import { documentPageHeaders } from "./pagination.js"
import { problems } from "./problems.js"
import { PreferenceLink } from "../shared/preference-schemas.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"
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
import { subscriberEndpoints as subscribers } from "../shared/subscriber-endpoints.js"

export const SubscribersGroup = HttpApiGroup.make("subscribers")
  .add(
    HttpApiEndpoint.post("create", "/subscribers")
      .setPayload(CreateSubscriberRequest)
      .addSuccess(CreatedSubscriber)
      .pipe(problems.describe(subscribers.create))
  )
  .add(
    HttpApiEndpoint.get("list", "/subscribers")
      .setUrlParams(SubscriberListParams)
      .addSuccess(SubscriberList)
      .annotate(OpenApi.Transform, documentPageHeaders)
      .pipe(problems.describe(subscribers.list))
  )
  .add(
    HttpApiEndpoint.get("getByEmail", "/subscribers/by-email/:email")
      .setPath(SubscriberEmailPath)
      .addSuccess(Subscriber)
      .pipe(problems.describe(subscribers.getByEmail))
  )
  .add(
    HttpApiEndpoint.get("get", "/subscribers/:subscriber_id")
      .setPath(SubscriberPath)
      .addSuccess(Subscriber)
      .pipe(problems.describe(subscribers.get))
  )
  .add(
    HttpApiEndpoint.put("update", "/subscribers/:subscriber_id")
      .setPath(SubscriberPath)
      .setPayload(UpdateSubscriberRequest)
      .addSuccess(Subscriber)
      .pipe(problems.describe(subscribers.update))
  )
  .add(
    HttpApiEndpoint.del("delete", "/subscribers/:subscriber_id")
      .setPath(SubscriberPath)
      .setPayload(NoFields)
      .annotate(OpenApi.Transform, optionalBody)
      .pipe(problems.describe(subscribers.delete))
  )
  .add(
    HttpApiEndpoint.post("attachTags", "/subscribers/:subscriber_id/tags")
      .setPath(SubscriberPath)
      .setPayload(AttachTagsRequest)
      .addSuccess(Subscriber)
      .pipe(problems.describe(subscribers.attachTags))
  )
  .add(
    HttpApiEndpoint.del("detachTag", "/subscribers/:subscriber_id/tags/:tag_id")
      .setPath(SubscriberTagPath)
      .setPayload(NoFields)
      .annotate(OpenApi.Transform, optionalBody)
      .pipe(problems.describe(subscribers.detachTag))
  )
  .add(
    HttpApiEndpoint.get("listTags", "/subscribers/:subscriber_id/tags")
      .setPath(SubscriberPath)
      .addSuccess(SubscriberTagList)
      .pipe(problems.describe(subscribers.listTags))
  )
  .add(
    HttpApiEndpoint.post("issuePreferenceLink", "/subscribers/:subscriber_id/token")
      .setPath(SubscriberPath)
      .setPayload(NoFields)
      .addSuccess(PreferenceLink)
      .annotate(OpenApi.Transform, optionalBody)
      .pipe(problems.describe(subscribers.issuePreferenceLink))
  )
  .add(
    HttpApiEndpoint.del("revokePreferenceLinks", "/subscribers/:subscriber_id/token")
      .setPath(SubscriberPath)
      .setPayload(NoFields)
      .annotate(OpenApi.Transform, optionalBody)
      .pipe(problems.describe(subscribers.revokePreferenceLinks))
  )
  .middleware(Authentication)
  .pipe(problems.group(...API_ROUTE_ERRORS))
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Subscribers")
  .annotate(OpenApi.Description, "Contacts of the organization, identified by email address, with status, tags and metadata.")
