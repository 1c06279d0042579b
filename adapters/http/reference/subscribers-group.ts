import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Authentication } from "./authentication.js"
import { documentPageHeaders } from "./pagination.js"
import { problems } from "./problems.js"
import { PreferenceLink } from "../shared/preference-schemas.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"
import {
  AttachTagsRequest,
  ConfirmationRequested,
  CreatedSubscriber,
  CreateSubscriberRequest,
  Subscriber,
  SubscriberEmailPath,
  SubscriberConsentList,
  SubscriberList,
  SubscriberListParams,
  SubscriberTagList,
  SubscriberTagPath,
  UpdateSubscriberRequest
} from "./subscriber-schemas.js"
import { withoutBody } from "../shared/action-body.js"
import { subscriberEndpoints } from "../shared/subscriber-endpoints.js"

const subscribers = subscriberEndpoints("subscriber_id")

export const SubscribersGroup = HttpApiGroup.make("subscribers")
  .add(
    HttpApiEndpoint.post("create", "/subscribers")
      .setPayload(CreateSubscriberRequest)
      .addSuccess(CreatedSubscriber)
      .addSuccess(ConfirmationRequested)
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
  .add(problems.declare(subscribers.get).addSuccess(Subscriber))
  .add(
    HttpApiEndpoint.put("update", subscribers.address)
      .setPath(subscribers.path)
      .setPayload(UpdateSubscriberRequest)
      .addSuccess(Subscriber)
      .pipe(problems.describe(subscribers.update))
  )
  .add(problems.declare(subscribers.delete))
  .add(
    HttpApiEndpoint.post("attachTags", `${subscribers.address}/tags`)
      .setPath(subscribers.path)
      .setPayload(AttachTagsRequest)
      .addSuccess(Subscriber)
      .pipe(problems.describe(subscribers.attachTags))
  )
  .add(
    HttpApiEndpoint.del("detachTag", `${subscribers.address}/tags/:tag_id`)
      .setPath(SubscriberTagPath)
      .pipe(withoutBody)
      .pipe(problems.describe(subscribers.detachTag))
  )
  .add(problems.declare(subscribers.listTags).addSuccess(SubscriberTagList))
  .add(problems.declare(subscribers.consents).addSuccess(SubscriberConsentList))
  .add(problems.declare(subscribers.issuePreferenceLink).addSuccess(PreferenceLink))
  .add(problems.declare(subscribers.revokePreferenceLinks))
  .middleware(Authentication)
  .pipe(problems.group(...API_ROUTE_ERRORS))
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Subscribers")
  .annotate(OpenApi.Description, "Contacts of the organization, identified by email address, with status, tags and metadata.")
