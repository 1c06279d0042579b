import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Authentication } from "./authentication.js"
import { problems } from "./problems.js"
import { CreateWebhookRequest, WebhookEndpoint } from "../shared/webhook-endpoint-schemas.js"
import { API_ROUTE_ERRORS, BODY_ERRORS, POST_ERRORS } from "../shared/wire-errors.js"
import {
  CreatedWebhookEndpoint,
  GlobalWebhookStats,
  RegeneratedWebhookEndpoint,
  RetriedWebhookDelivery,
  UpdateWebhookRequest,
  WebhookDelivery,
  WebhookDeliveryList,
  WebhookDeliveryListParams,
  WebhookDeliveryPath,
  WebhookEndpointList,
  WebhookEventTypeList,
  WebhookPath,
  WebhookStats,
  WebhookTestResult
} from "./webhook-schemas.js"
import { NoFields, optionalBody } from "../shared/action-body.js"

const scope = "Scope `webhooks:manage`."

const guard = "A URL whose host is, or resolves to, a loopback, private, link-local or cloud-metadata address is 400 " +
  "`validation_error` on `url` (unless the operator set `WEBHOOK_ALLOW_PRIVATE_TARGETS`)."

/** How deliveries go out, told once for the group and where it matters on the endpoints. */
const deliveries = `Every event of a kind an active endpoint listens to becomes a delivery to it, sent at least once:
a POST of \`application/json\` with the body \`{id, type, created_at, organization_id, data}\` (\`id\` is the event's id,
\`created_at\` when it happened, \`data\` the resource as the API shows it).

Deliveries are signed the Standard Webhooks way (https://www.standardwebhooks.com): the headers \`webhook-id\` (the
event's id, the same on every attempt, so receivers can drop repeats), \`webhook-timestamp\` (Unix seconds of this
attempt) and \`webhook-signature\`, a space-separated list of \`v1,<base64 HMAC-SHA256 of "id.timestamp.body">\` keyed
with the base64 after \`whsec_\` in the endpoint's signing secret. After a secret is regenerated, the old one signs
beside the new one for 24 hours, so receivers can switch without losing a message. Any Standard Webhooks library
verifies them.

An attempt succeeds when the endpoint answers 2xx within 10 seconds; redirects are not followed (3xx is a failure).
The first attempt goes out at once; after a failure the next ones follow 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h
later (each wait give or take 10 %), eight attempts over about 28 hours; after a 429 the next waits at least its
\`Retry-After\`. A 410 Gone ends the delivery and disables
the endpoint; so do five days of failed attempts without a success. Every attempt is recorded with its status code,
duration and error, and response bodies are never kept. Finished deliveries and their attempts are kept for 30 days.`

export const WebhooksGroup = HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.get("eventTypes", "/webhooks/event-types")
      .addSuccess(WebhookEventTypeList)
      .annotateContext(OpenApi.annotations({
        summary: "List the event kinds",
        description: "Every event kind an endpoint can listen to, with what it means. Any authenticated caller."
      }))
  )
  .add(
    HttpApiEndpoint.get("globalStats", "/webhooks/stats/global")
      .addSuccess(GlobalWebhookStats)
      .annotateContext(OpenApi.annotations({
        summary: "Get the organization's webhook figures",
        description: "The attempts of every endpoint of the organization over the last 7 days: how many, how many " +
          "succeeded and failed, the success rate, the median and 95th-percentile durations and the last success and " +
          `failure; with how many endpoints are active and disabled and how many deliveries are waiting. ${scope}`
      }))
  )
  .add(
    HttpApiEndpoint.post("create", "/webhooks")
      .setPayload(CreateWebhookRequest)
      .addSuccess(CreatedWebhookEndpoint)
      .pipe(problems.endpoint(...POST_ERRORS))
      .annotateContext(OpenApi.annotations({
        summary: "Create a webhook endpoint",
        description: "Registers an `active` endpoint for the event kinds given (every kind when `events` is left out) " +
          "and answers it with its `signing_secret`, this once: keep it to verify the `webhook-signature` of " +
          `deliveries. ${guard} An organization may have 50 endpoints. ${scope}`
      }))
  )
  .add(
    HttpApiEndpoint.get("list", "/webhooks")
      .addSuccess(WebhookEndpointList)
      .annotateContext(OpenApi.annotations({
        summary: "List webhook endpoints",
        description: `Every endpoint of the organization, oldest first, without the signing secrets. ${scope}`
      }))
  )
  .add(
    HttpApiEndpoint.get("get", "/webhooks/:webhook_id")
      .setPath(WebhookPath)
      .addSuccess(WebhookEndpoint)
      .pipe(problems.endpoint("not_found"))
      .annotateContext(OpenApi.annotations({
        summary: "Get a webhook endpoint",
        description: `The endpoint, without its signing secret. ${scope}`
      }))
  )
  .add(
    HttpApiEndpoint.put("update", "/webhooks/:webhook_id")
      .setPath(WebhookPath)
      .setPayload(UpdateWebhookRequest)
      .addSuccess(WebhookEndpoint)
      .pipe(problems.endpoint("not_found", ...BODY_ERRORS))
      .annotateContext(OpenApi.annotations({
        summary: "Update a webhook endpoint",
        description: "Changes the URL, event kinds, description or status; fields left out stay as they are. " +
          "`status: disabled` pauses deliveries (they wait, pending), `status: active` resumes an endpoint however it " +
          `was disabled and sends what waited. ${guard} ${scope}`
      }))
  )
  .add(
    HttpApiEndpoint.del("delete", "/webhooks/:webhook_id")
      .setPath(WebhookPath)
      .setPayload(NoFields)
      .pipe(problems.endpoint("not_found", ...BODY_ERRORS))
      .annotate(OpenApi.Transform, optionalBody)
      .annotateContext(OpenApi.annotations({
        summary: "Delete a webhook endpoint",
        description: `Deletes the endpoint with its deliveries and their attempts; nothing more is sent to it. ${scope}`
      }))
  )
  .add(
    HttpApiEndpoint.post("test", "/webhooks/:webhook_id/test")
      .setPath(WebhookPath)
      .setPayload(NoFields)
      .addSuccess(WebhookTestResult)
      .pipe(problems.endpoint("not_found", ...POST_ERRORS))
      .annotate(OpenApi.Transform, optionalBody)
      .annotateContext(OpenApi.annotations({
        summary: "Send a test event",
        description: "Sends one `webhook.test` event to the endpoint at once, signed and sent like any delivery " +
          "(`data` is `{webhook_id, message}`), and answers what came back: `success` for a 2xx, the `status_code` " +
          "(0 when no answer came within 10 seconds, the connection was refused or the target is not allowed), the " +
          "`response_time_ms` and, on failure, the `error`. It is sent whatever the endpoint's status and event kinds, " +
          `is not retried and is not recorded as a delivery. ${scope}`
      }))
  )
  .add(
    HttpApiEndpoint.post("regenerateSecret", "/webhooks/:webhook_id/regenerate-secret")
      .setPath(WebhookPath)
      .setPayload(NoFields)
      .addSuccess(RegeneratedWebhookEndpoint)
      .pipe(problems.endpoint("not_found", ...POST_ERRORS))
      .annotate(OpenApi.Transform, optionalBody)
      .annotateContext(OpenApi.annotations({
        summary: "Regenerate a webhook endpoint's signing secret",
        description: "Gives the endpoint a new signing secret and answers it, this once. For 24 hours " +
          "(`previous_secret_expires_at`) every delivery carries two signatures in `webhook-signature`, one with the " +
          `new secret and one with the old, so receivers can switch without losing a message. ${scope}`
      }))
  )
  .add(
    HttpApiEndpoint.get("listDeliveries", "/webhooks/:webhook_id/deliveries")
      .setPath(WebhookPath)
      .setUrlParams(WebhookDeliveryListParams)
      .addSuccess(WebhookDeliveryList)
      .pipe(problems.endpoint("not_found"))
      .annotateContext(OpenApi.annotations({
        summary: "List an endpoint's deliveries",
        description: "One page of the endpoint's deliveries, newest first, each with its attempts, optionally of one " +
          `status. Follow \`next_cursor\` for the next page. ${scope}`
      }))
  )
  .add(
    HttpApiEndpoint.get("getDelivery", "/webhooks/:webhook_id/deliveries/:delivery_id")
      .setPath(WebhookDeliveryPath)
      .addSuccess(WebhookDelivery)
      .pipe(problems.endpoint("not_found"))
      .annotateContext(OpenApi.annotations({
        summary: "Get a delivery",
        description: `The delivery with every attempt, oldest first. ${scope}`
      }))
  )
  .add(
    HttpApiEndpoint.post("retryDelivery", "/webhooks/:webhook_id/deliveries/:delivery_id/retry")
      .setPath(WebhookDeliveryPath)
      .setPayload(NoFields)
      .addSuccess(RetriedWebhookDelivery)
      .pipe(problems.endpoint("not_found", ...POST_ERRORS))
      .annotate(OpenApi.Transform, optionalBody)
      .annotateContext(OpenApi.annotations({
        summary: "Retry a delivery",
        description: "Makes the delivery `pending` and due at once, whatever became of it, and answers 202: a worker " +
          "sends it as a new attempt with the same `webhook-id`, so receivers that drop repeats see it once. A " +
          `disabled endpoint holds it until resumed. ${scope}`
      }))
  )
  .add(
    HttpApiEndpoint.get("stats", "/webhooks/:webhook_id/stats")
      .setPath(WebhookPath)
      .addSuccess(WebhookStats)
      .pipe(problems.endpoint("not_found"))
      .annotateContext(OpenApi.annotations({
        summary: "Get an endpoint's figures",
        description: "The endpoint's attempts over the last 7 days: how many, how many succeeded and failed, the " +
          "success rate, the median and 95th-percentile durations, the last success and failure, and how many " +
          `deliveries are waiting. ${scope}`
      }))
  )
  .middleware(Authentication)
  .pipe(problems.group(...API_ROUTE_ERRORS))
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Webhooks")
  .annotate(
    OpenApi.Description,
    `Endpoints of other systems that hear of the organization's subscriber and tag events. ${scope}\n\n${deliveries}`
  )
